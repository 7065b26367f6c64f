import * as fs from 'node:fs';
import { makeDirs } from './make-dirs.js';

/**
 * The file operations durable writes are made of. Injectable so a test can record the exact sequence
 * (SIGKILL cannot reveal a missing fsync: the kernel keeps the page cache).
 */
export interface FsLayer {
  open(path: string, flags: string, mode?: number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** `mkdir -p` (make-dirs.ts): the folders it made, outermost first. */
  mkdir(path: string): Promise<readonly string[]>;
  /** Cuts the file to `length` bytes. */
  truncate(path: string, length: number): Promise<void>;
}

export interface FileHandleLike {
  write(data: string | Uint8Array): Promise<unknown>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

type Callback<T> = (error: NodeJS.ErrnoException | null, value?: T) => void;

/** Adapts one callback-style fs call to a promise (cheaper per call than fs/promises' FileHandle machinery). */
function call<T = void>(start: (done: Callback<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

/**
 * A plain descriptor behind the FileHandleLike shape. The durable write path runs one open, write, fsync and close
 * per PUT on the server's main thread, where fs/promises' FileHandle costs measurably more (bench `put`).
 * `writeFile` on a descriptor loops until every byte is written, which a single write(2) does not promise.
 */
function descriptorHandle(fd: number): FileHandleLike {
  // A second close must not close whatever file has since been given the same descriptor number.
  let closing: Promise<void> | undefined;
  return {
    write: (data) => call((done) => fs.writeFile(fd, data, done)),
    sync: () => call((done) => fs.fsync(fd, done)),
    close: () => (closing ??= call((done) => fs.close(fd, done))),
  };
}

export const nodeFs: FsLayer = {
  open: async (path, flags, mode) => descriptorHandle(await call<number>((done) => fs.open(path, flags, mode, done))),
  rename: (from, to) => call((done) => fs.rename(from, to, done)),
  unlink: (path) => call((done) => fs.unlink(path, done)),
  mkdir: (path) => makeDirs(path),
  truncate: (path, length) => call((done) => fs.truncate(path, length, done)),
};

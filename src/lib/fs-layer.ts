import * as fsp from 'node:fs/promises';

/**
 * The file operations durable writes are made of. Injectable so a test can record the exact sequence
 * (SIGKILL cannot reveal a missing fsync: the kernel keeps the page cache).
 */
export interface FsLayer {
  open(path: string, flags: string, mode?: number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
}

export interface FileHandleLike {
  write(data: string | Uint8Array): Promise<unknown>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export const nodeFs: FsLayer = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  mkdir: async (path) => {
    await fsp.mkdir(path, { recursive: true });
  },
};

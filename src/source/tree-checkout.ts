import { spawn } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { batchParser } from './cat-file-batch.js';
import type { TreeFile } from './tree-listing.js';
import { makeDirs } from '../lib/make-dirs.js';

/** Streams blobs by id: calls `onBlob` with each one's bytes, in the order asked. */
export type BlobReader = (oids: readonly string[], onBlob: (oid: string, bytes: Buffer) => Promise<void>) => Promise<void>;

/**
 * Writes `files` under `dir` as plain files: a symlink as a file holding its target's path (so a commit can never make
 * the daemon read outside the checkout), a file past `largestWritten` as a sparse file of its size (the loader then
 * reports it by its size, unread, and it costs no disk). No filter, attribute or hook of the commit plays any part.
 */
export async function writeCheckout(dir: string, files: readonly TreeFile[], readBlobs: BlobReader, largestWritten: number): Promise<void> {
  const folders = new Set<string>();
  const folderOf = async (file: TreeFile): Promise<string> => {
    const path = join(dir, file.path);
    const folder = dirname(path);
    // Stryker disable next-line ConditionalExpression: speed only: a folder made once, not once per file in it
    if (!folders.has(folder)) {
      await makeDirs(folder);
      folders.add(folder);
    }
    return path;
  };
  const written: TreeFile[] = [];
  for (const file of files) {
    if (file.size <= largestWritten) {
      written.push(file);
      continue;
    }
    const path = await folderOf(file);
    await writeFile(path, '');
    await truncate(path, file.size);
  }
  const byOid = new Map<string, TreeFile[]>();
  for (const file of written) {
    const same = byOid.get(file.oid);
    // Pushed, not copied: a commit of 100,000 files of one content must not cost 100,000² steps.
    if (same) same.push(file);
    else byOid.set(file.oid, [file]);
  }
  await readBlobs([...byOid.keys()], async (oid, bytes) => {
    for (const file of byOid.get(oid) ?? []) await writeFile(await folderOf(file), bytes);
  });
}

/**
 * `git cat-file --batch` over `oids`, read as it streams: each blob is handed over whole, then dropped, so memory holds
 * one blob (at most the largest written) however many there are.
 */
export function catFileBlobs(spawnGit: (args: readonly string[]) => ReturnType<typeof spawn>): BlobReader {
  return (oids, onBlob) =>
    new Promise<void>((resolve, reject) => {
      if (oids.length === 0) return resolve();
      const child = spawnGit(['cat-file', '--batch']);
      const parser = batchParser(onBlob);
      let failed: Error | undefined;
      let stderr = '';
      let pending = Promise.resolve();
      child.stdout?.on('data', (chunk: Buffer) => {
        // Writes are awaited in order: the stream pauses while a blob is written.
        child.stdout?.pause();
        pending = pending.then(() => parser.push(chunk)).then(
          () => void child.stdout?.resume(),
          (error: unknown) => {
            failed ??= error instanceof Error ? error : new Error(String(error));
            child.kill();
          },
        );
      });
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.once('error', (error) => (failed ??= error));
      child.once('close', (code) => {
        void pending.then(() => {
          if (failed) return reject(failed);
          if (code !== 0) return reject(new Error(`git cat-file failed: ${stderr.trim() || `exit code ${String(code)}`}`));
          if (!parser.done(oids.length)) return reject(new Error('git cat-file ended before every blob was read'));
          resolve();
        });
      });
      // A git that exits early (not a repository) closes its stdin under our write: EPIPE says nothing its exit code
      // and stderr do not say better, and taken first it hid them.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(`${oids.join('\n')}\n`);
    });
}

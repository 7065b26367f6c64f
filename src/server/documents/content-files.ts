import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DirSyncBarrier, TEMP_MARKER, mkdirDurable } from '../../lib/durable-file.js';
import { ignoreMissing } from '../../lib/fs-errors.js';
import type { FileHandleLike, FsLayer } from '../../lib/fs-layer.js';

/** An upload being written to its own file: bytes go to disk as they arrive, never held whole in memory. */
export interface ContentUpload {
  write(chunk: Uint8Array): Promise<void>;
  /** Makes the file durable under its final name; the returned name is what a record refers to. */
  finish(): Promise<{ file: string; size: number }>;
  /** Drops a failed or refused upload, finished or not. */
  discard(): Promise<void>;
}

/**
 * Document contents, one immutable file each, named by random hex. A record refers to its file only after the file
 * is durable (temp → fsync → rename → fsync dir), so a crash leaves at worst a file nobody refers to, which
 * `sweep` removes at the next start.
 */
export class ContentFiles {
  private readonly barrier: DirSyncBarrier;

  private constructor(
    readonly dir: string,
    private readonly fs: FsLayer,
  ) {
    this.barrier = new DirSyncBarrier(dir, fs);
  }

  static async open(dir: string, fs: FsLayer): Promise<ContentFiles> {
    await mkdirDurable(dir, fs);
    return new ContentFiles(dir, fs);
  }

  path(file: string): string {
    return join(this.dir, file);
  }

  upload(): ContentUpload {
    const name = `${randomBytes(16).toString('hex')}.bin`;
    const temp = join(this.dir, `${name}${TEMP_MARKER}upload`);
    let handle: Promise<FileHandleLike> | undefined;
    let size = 0;
    let finished = false;
    const opened = (): Promise<FileHandleLike> => (handle ??= this.fs.open(temp, 'wx', 0o644));
    const discard = async (): Promise<void> => {
      if (!handle) return;
      await (await handle.catch(() => undefined))?.close().catch(() => undefined);
      await this.fs.unlink(finished ? this.path(name) : temp).catch(ignoreMissing);
    };
    return {
      write: async (chunk) => {
        size += chunk.length;
        await (await opened()).write(chunk);
      },
      finish: async () => {
        const file = await opened();
        try {
          await file.sync();
        } finally {
          await file.close();
        }
        await this.fs.rename(temp, this.path(name));
        finished = true;
        await this.barrier.sync();
        return { file: name, size };
      },
      discard,
    };
  }

  /** Removes a file no record refers to any more; a crash before it is durable leaves it to `sweep`. */
  async remove(file: string): Promise<void> {
    await this.fs.unlink(this.path(file)).catch(ignoreMissing);
  }

  /** Removes every file no record refers to: uploads a crash interrupted, contents replaced or purged meanwhile. */
  async sweep(referenced: ReadonlySet<string>): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (referenced.has(name)) continue;
      await this.fs.unlink(join(this.dir, name)).catch(ignoreMissing);
      removed += 1;
    }
    return removed;
  }
}

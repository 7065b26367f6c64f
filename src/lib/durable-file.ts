import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { nodeFs, type FsLayer } from './fs-layer.js';

/** Temp files carry this marker so a damaged-store scan can recognise and remove leftovers. */
export const TEMP_MARKER = '.tmp-';

/**
 * Temp names are a per-process random prefix plus a counter: unique within the process without drawing random
 * bytes per write, and unlikely to collide across processes ('wx' refuses a collision rather than clobbering).
 */
const TEMP_PREFIX = randomBytes(6).toString('hex');
let tempCounter = 0;

export interface DurableWriteOptions {
  fs?: FsLayer;
  mode?: number;
  /**
   * Makes the rename durable; called only after the rename completed, and the write resolves only after it does.
   * Must fsync the directory with an fsync that starts after this call (a {@link DirSyncBarrier} shares one among
   * concurrent writers). Defaults to a dedicated fsyncDir.
   */
  syncDir?: () => Promise<void>;
}

/**
 * Replaces `path` atomically and durably: temp file → fsync → rename → fsync(dir).
 * A crash at any instant leaves either the old or the new content, never a mix; once this resolves the new
 * content survives power loss.
 */
export async function writeFileDurable(
  path: string,
  data: string | Uint8Array,
  { fs = nodeFs, mode = 0o644, syncDir }: DurableWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `${basename(path)}${TEMP_MARKER}${TEMP_PREFIX}${(tempCounter++).toString(36)}`);
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await handle.write(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  await (syncDir ? syncDir() : fsyncDir(dir, fs));
}

/** Appends and fsyncs: when this resolves the bytes are on disk. Callers write whole lines only. */
export async function appendDurable(
  path: string,
  data: string | Uint8Array,
  { fs = nodeFs, mode = 0o644 }: DurableWriteOptions = {},
): Promise<void> {
  const handle = await fs.open(path, 'a', mode);
  try {
    await handle.write(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a directory entry change (create, rename, unlink) durable. */
export function fsyncDir(dir: string, fs: FsLayer = nodeFs): Promise<void> {
  return fsyncFile(dir, fs);
}

/** Makes what was done to a file or directory by name (a truncate; entries changed in a directory) durable. */
export async function fsyncFile(path: string, fs: FsLayer = nodeFs): Promise<void> {
  const handle = await fs.open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for directory fsyncs: `sync()` resolves after an fsync of `dir` that STARTED after the call, so
 * every rename completed before the call is durable when it resolves. Callers arriving while an fsync runs join
 * the next one, which starts as soon as the running one ends: N concurrent writers pay for about two directory
 * fsyncs instead of N, with no added wait when the barrier is idle.
 */
export class DirSyncBarrier {
  private running = false;
  private waiting: Waiter[] = [];

  constructor(
    private readonly dir: string,
    private readonly fs: FsLayer = nodeFs,
  ) {}

  sync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.flush();
    });
  }

  private flush(): void {
    // Everyone in `batch` called sync() before this fsync opens the directory: that ordering is the guarantee.
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    fsyncDir(this.dir, this.fs).then(
      () => this.settle(batch, undefined, false),
      (error: unknown) => this.settle(batch, error, true),
    );
  }

  private settle(batch: readonly Waiter[], error: unknown, failed: boolean): void {
    this.running = false;
    for (const waiter of batch) {
      if (failed) waiter.reject(error);
      else waiter.resolve();
    }
    if (this.waiting.length > 0) this.flush();
  }
}

/**
 * Creates `dir` and any missing parents, each new entry made durable in its parent (the folder's own entry even when it
 * was there: an earlier run may have made it and died before its fsync). Resolves to whether `dir` was made now.
 */
export async function mkdirDurable(dir: string, fs: FsLayer = nodeFs): Promise<boolean> {
  const made = await fs.mkdir(dir);
  for (const folder of made.length > 0 ? made : [dir]) await fsyncDir(dirname(folder), fs);
  return made.length > 0;
}

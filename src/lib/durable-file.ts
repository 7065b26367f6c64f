import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { nodeFs, type FsLayer } from './fs-layer.js';

/** Temp files carry this marker so a damaged-store scan can recognise and remove leftovers. */
export const TEMP_MARKER = '.tmp-';

export interface DurableWriteOptions {
  fs?: FsLayer;
  mode?: number;
}

/**
 * Replaces `path` atomically and durably: temp file → fsync → rename → fsync(dir).
 * A crash at any instant leaves either the old or the new content, never a mix; once this resolves the new
 * content survives power loss.
 */
export async function writeFileDurable(
  path: string,
  data: string | Uint8Array,
  { fs = nodeFs, mode = 0o644 }: DurableWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `${basename(path)}${TEMP_MARKER}${randomBytes(6).toString('hex')}`);
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
  await fsyncDir(dir, fs);
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
export async function fsyncDir(dir: string, fs: FsLayer = nodeFs): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `dir` (and parents) and makes the new entry durable in its parent. */
export async function mkdirDurable(dir: string, fs: FsLayer = nodeFs): Promise<void> {
  await fs.mkdir(dir);
  await fsyncDir(dirname(dir), fs);
}

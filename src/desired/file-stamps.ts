import { createHash } from 'node:crypto';

/**
 * What a file's metadata says about its bytes, as git's index uses it: a file whose stamp equals the one taken when
 * its bytes were hashed still has those bytes, so a run need not read and hash it again (at 10,000 files that was
 * 240 MB read and hashed on every plan). Every write changes `ctimeMs`, which no program can set back (`touch` and
 * utimes set `mtimeMs` only); a replacing write (an editor's rename, a checkout) also gives another inode.
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

export interface StampedHash {
  stamp: FileStamp;
  /** SHA-256 (hex) of the bytes the file had under `stamp`. */
  contentHash: string;
}

/**
 * How old a file's times must be, when its stamp is taken, for the stamp to vouch for its bytes. A write in the same
 * tick of the file system's clock as the stamp leaves the times unchanged (coarse kernel clocks tick every few ms,
 * some file systems keep whole or even two seconds): such a racy stamp is never recorded, and the file is read again.
 */
export const SETTLED_MS = 3_000;

export function stampOf(stats: FileStamp): FileStamp {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, dev: stats.dev };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/** Whether a stamp taken at `takenAtMs` may be recorded: its file was last written well before that. */
export function isSettled(stamp: FileStamp, takenAtMs: number): boolean {
  return Math.max(stamp.mtimeMs, stamp.ctimeMs) < takenAtMs - SETTLED_MS;
}

/**
 * The stamps file beside a check cache (check-cache-file.ts): content hash by path and stamp. Pure: bytes in, bytes out.
 *
 *   magic (8) · format (u32) · SHA-256 of the rest (32) · count (u32), then per entry:
 *   u32 + path (UTF-8) · content hash (32) · size, mtimeMs, ctimeMs, ino, dev (f64 each)
 */
const MAGIC = Buffer.from('dashcdSt', 'latin1');
const FORMAT = 1;
const HEAD_BYTES = MAGIC.length + 4 + 32;
const HASH_BYTES = 32;
const NUMBERS: readonly (keyof FileStamp)[] = ['size', 'mtimeMs', 'ctimeMs', 'ino', 'dev'];

export function encodeFileStamps(entries: Iterable<readonly [path: string, entry: StampedHash]>): Buffer {
  const parts: Buffer[] = [];
  let count = 0;
  for (const [path, { stamp, contentHash }] of entries) {
    const name = Buffer.from(path);
    const fixed = Buffer.alloc(4 + name.length + HASH_BYTES + 8 * NUMBERS.length);
    fixed.writeUInt32LE(name.length, 0);
    name.copy(fixed, 4);
    Buffer.from(contentHash, 'hex').copy(fixed, 4 + name.length);
    NUMBERS.forEach((key, i) => fixed.writeDoubleLE(stamp[key], 4 + name.length + HASH_BYTES + 8 * i));
    parts.push(fixed);
    count += 1;
  }
  const countBytes = Buffer.alloc(4);
  countBytes.writeUInt32LE(count, 0);
  const rest = Buffer.concat([countBytes, ...parts]);
  const format = Buffer.alloc(4);
  format.writeUInt32LE(FORMAT, 0);
  return Buffer.concat([MAGIC, format, sha256(rest), rest]);
}

/** The entries of a file encodeFileStamps wrote; undefined for anything else (damaged, truncated, another format). */
export function decodeFileStamps(bytes: Buffer): Map<string, StampedHash> | undefined {
  const rest = bytes.subarray(HEAD_BYTES);
  if (bytes.length < HEAD_BYTES + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32LE(MAGIC.length) !== FORMAT) return undefined;
  if (!sha256(rest).equals(bytes.subarray(MAGIC.length + 4, HEAD_BYTES))) return undefined;
  try {
    return readEntries(rest);
  } catch {
    // A checksum that matches entries we cannot read (a broken writer): no stamps.
    return undefined;
  }
}

/** The entries, or undefined when they do not fill `rest` exactly; throws on one that ends early. */
function readEntries(rest: Buffer): Map<string, StampedHash> | undefined {
  const out = new Map<string, StampedHash>();
  const count = rest.readUInt32LE(0);
  let at = 4;
  for (let i = 0; i < count; i++) {
    const nameLength = rest.readUInt32LE(at);
    const path = rest.subarray(at + 4, at + 4 + nameLength).toString();
    at += 4 + nameLength;
    const contentHash = rest.subarray(at, at + HASH_BYTES).toString('hex');
    at += HASH_BYTES;
    const numbers = NUMBERS.map((_, k) => rest.readDoubleLE(at + 8 * k));
    at += 8 * NUMBERS.length;
    const [size, mtimeMs, ctimeMs, ino, dev] = numbers as [number, number, number, number, number];
    out.set(path, { stamp: { size, mtimeMs, ctimeMs, ino, dev }, contentHash });
  }
  return at === rest.length ? out : undefined;
}

function sha256(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}

import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflateRawSync, inflateRaw } from 'node:zlib';
import type { PackedCheck } from './packed-check.js';

/**
 * The bytes of the check cache file (check-cache-file.ts): file checks by content hash, for one version of the
 * check code. Pure: bytes in, bytes out.
 *
 *   magic (8) · format (u32) · code key (32) · SHA-256 of the rest (32) · entries' length (u48) · deflated entries
 *   entries: count (u32), then per entry: content hash (32) · u32 + the check's JSON without `bodyJson` · u32 + `bodyJson`
 *
 * `bodyJson` is kept out of the JSON so that reading it back is a slice of the inflated bytes, not a JSON string
 * unescaped again: a 10,000-file folder holds ~180 MB of it (decoded only when read: withBodyOf). The whole is deflated as one stream (fastest level):
 * ~12× smaller, and one inflate is a tenth of the cost of 10,000 small ones (into one buffer of the length the
 * header gives: half the time of the default, whose output chunks are joined after). The checksum makes a damaged file
 * (a bad disk, an edit, another program's file under the name) read as no file rather than as wrong checks.
 */
const MAGIC = Buffer.from('dashcdCk', 'latin1');
/** Raised whenever the layout above changes; the code key covers what the checks mean. */
const FORMAT = 1;
const HASH_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 4 + HASH_BYTES + HASH_BYTES;
const LENGTH_BYTES = 6;
/** zlib's smallest output chunk. */
const MIN_CHUNK = 64;

export function encodeCheckCache(codeKey: Buffer, entries: Iterable<readonly [contentHash: string, check: PackedCheck]>): Buffer {
  const parts: Buffer[] = [];
  let count = 0;
  for (const [contentHash, check] of entries) {
    const { bodyJson, ...meta } = check as PackedCheck & { bodyJson?: string };
    // Stryker disable next-line StringLiteral: an invalid check's body is never read back
    parts.push(Buffer.from(contentHash, 'hex'), sized(JSON.stringify(meta)), sized(bodyJson ?? ''));
    count += 1;
  }
  const block = Buffer.concat([u32(count), ...parts]);
  const length = Buffer.alloc(LENGTH_BYTES);
  length.writeUIntLE(block.length, 0, LENGTH_BYTES);
  // Stryker disable next-line ObjectLiteral: speed only (any level inflates to the same bytes)
  const rest = Buffer.concat([length, deflateRawSync(block, { level: 1 })]);
  return Buffer.concat([MAGIC, u32(FORMAT), codeKey, sha256(rest), rest]);
}

/** On libuv's thread pool: the calling thread loads modules or reads files meanwhile (a plan opens the cache early). */
const inflateOffThread = promisify(inflateRaw);

/**
 * The entries of a file written by encodeCheckCache with this `codeKey`; undefined for anything else (another
 * format or code version, a truncated or damaged file, not a cache file at all): the caller starts empty.
 */
export async function decodeCheckCache(bytes: Buffer, codeKey: Buffer): Promise<Map<string, PackedCheck> | undefined> {
  const rest = bytes.subarray(HEADER_BYTES);
  const matches = bytes.subarray(0, 8).equals(MAGIC) && bytes.subarray(12, 44).equals(codeKey) && sha256(rest).equals(bytes.subarray(44, HEADER_BYTES));
  // Stryker disable BlockStatement: an empty catch answers undefined too
  try {
    if (!matches || bytes.readUInt32LE(8) !== FORMAT) return undefined;
    // Stryker disable next-line ObjectLiteral: speed only (zlib's default chunks give the same bytes)
    return readEntries(await inflateOffThread(rest.subarray(LENGTH_BYTES), { chunkSize: Math.max(MIN_CHUNK, rest.readUIntLE(0, LENGTH_BYTES)) }));
  } catch {
    // Too short to hold a header, or a checksum that matches bytes we cannot read (a broken writer): no cache.
    return undefined;
  }
  // Stryker restore BlockStatement
}

/** The entries block, or undefined when its entries do not fill it exactly. Throws on one that ends early. */
function readEntries(entries: Buffer): Map<string, PackedCheck> | undefined {
  const out = new Map<string, PackedCheck>();
  const count = entries.readUInt32LE(0);
  let at = 4;
  // Past the end, subarray gives fewer bytes and `at` runs past the length: the last line sees it.
  const take = (length: number): Buffer => entries.subarray(at, (at += length));
  const text = (): string => take(take(4).readUInt32LE(0)).toString();
  for (let i = 0; i < count; i++) {
    const contentHash = take(HASH_BYTES).toString('hex');
    const meta: unknown = JSON.parse(text());
    const body = take(take(4).readUInt32LE(0));
    if (!isPackedMeta(meta, body)) return undefined;
    out.set(contentHash, meta.ok ? withBodyOf(meta, body) : meta);
  }
  return at === entries.length ? out : undefined;
}

/**
 * Whether an entry has the shape packCheck gives (a written file always has): one that does not would fail later,
 * far from here (a body that is no JSON, problems that cannot be printed), so the whole file reads as no file.
 */
function isPackedMeta(meta: unknown, body: Buffer): meta is PackedCheck {
  // Object(): null and other non-objects become objects without these members, so they fail the checks below.
  const entry = Object(meta) as Record<string, unknown>;
  const problemsOk = (list: unknown): boolean => Array.isArray(list) && list.every((p) => typeof (Object(p) as { message?: unknown }).message === 'string');
  if (entry.warnings !== undefined && !problemsOk(entry.warnings)) return false;
  if (entry.ok === false) return problemsOk(entry.problems);
  return (
    entry.ok === true &&
    typeof entry.name === 'string' &&
    typeof entry.hasEnvironmentOverrides === 'boolean' &&
    (entry.fileId === undefined || typeof entry.fileId === 'string') &&
    (entry.kind === undefined || entry.kind === 'document') &&
    body[0] === OPEN_BRACE
  );
}

const OPEN_BRACE = 0x7b;

/**
 * A valid entry whose `bodyJson` is decoded from the inflated bytes each time it is read, not once here: 10,000 bodies
 * made at once were 180 MB of strings the garbage collector copied and marked before a plan's first GET (a fifth
 * of a no-op plan's wall time), where one decoded as its dashboard is compared dies young.
 */
function withBodyOf(meta: PackedCheck & { ok: true }, body: Buffer): PackedCheck {
  return Object.defineProperty(meta, 'bodyJson', { get: () => body.toString(), enumerable: true });
}

function sized(text: string): Buffer {
  const bytes = Buffer.from(text);
  return Buffer.concat([u32(bytes.length), bytes]);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value, 0);
  return out;
}

function sha256(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}

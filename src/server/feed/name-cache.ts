/**
 * Strings by the bytes they were decoded from. An event log repeats a few hundred event types and entity ids across a
 * million lines: decoding a new string for each line, which every CodeTable lookup then hashes again, was a fifth of a
 * restart's scan. A hit hands back the string decoded the first time (V8 keeps its hash with it) and allocates nothing.
 *
 * Direct-mapped: a name whose slot another holds takes it over, so a log of more distinct names than slots costs a
 * decode per line again, never a wrong name (a hit compares every byte).
 */
const SAMPLED_HEAD = 4;
const SAMPLED_TAIL = 8;

interface Kept {
  readonly bytes: Buffer;
  readonly text: string;
}

export class NameCache {
  private readonly kept: (Kept | undefined)[];
  private readonly mask: number;

  /** `slots`: a power of two. `maxBytes`: longer names are decoded each time and never kept. */
  constructor(
    slots = 4096,
    private readonly maxBytes = 256,
  ) {
    if (!Number.isInteger(Math.log2(slots))) throw new RangeError(`name cache slots must be a power of two, not ${slots}`);
    this.kept = new Array<Kept | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  /** The UTF-8 text of `buf[start..end)`. */
  textOf(buf: Buffer, start: number, end: number): string {
    const length = end - start;
    if (length > this.maxBytes) return buf.toString('utf8', start, end);
    // The hash samples the ends only (names of one kind differ there: `HOST-…`, `…_RESTART`): hashing every byte cost
    // as much as the decode it saves. A hit still compares every byte.
    let hash = 0x811c9dc5 ^ length;
    const head = Math.min(end, start + SAMPLED_HEAD);
    for (let i = start; i < head; i++) hash = Math.imul(hash ^ (buf[i] ?? 0), 0x01000193);
    for (let i = Math.max(head, end - SAMPLED_TAIL); i < end; i++) hash = Math.imul(hash ^ (buf[i] ?? 0), 0x01000193);
    const slot = hash & this.mask;
    const known = this.kept[slot];
    if (known !== undefined && sameBytes(known.bytes, buf, start, length)) return known.text;
    const text = buf.toString('utf8', start, end);
    // A copy: `buf` is the scan's chunk, overwritten by the next read.
    this.kept[slot] = { bytes: Buffer.from(buf.subarray(start, end)), text };
    return text;
  }
}

function sameBytes(known: Buffer, buf: Buffer, start: number, length: number): boolean {
  if (known.length !== length) return false;
  for (let i = 0; i < length; i++) if (known[i] !== buf[start + i]) return false;
  return true;
}

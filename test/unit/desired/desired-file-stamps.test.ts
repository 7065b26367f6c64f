import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeFileStamps, encodeFileStamps, isSettled, sameStamp, SETTLED_MS, stampOf, type FileStamp, type StampedHash } from '../../../src/desired/file-stamps.js';

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

const STAMP: FileStamp = { size: 18_342, mtimeMs: 1_764_000_000_123.4567, ctimeMs: 1_764_000_001_765.4321, ino: 2 ** 40 + 17, dev: 66_306 };
const ENTRIES: [string, StampedHash][] = [
  ['/repo/dashboards/checkout.yaml', { stamp: STAMP, contentHash: hashOf('a') }],
  ['/repo/dashboards/ü ✓ 🚀/hosts.yaml', { stamp: { ...STAMP, size: 0, ino: 3 }, contentHash: hashOf('b') }],
];

/** A stamps file around any entries block, with a valid checksum: what a broken writer would leave. */
function fileAround(rest: Buffer, format = 1): Buffer {
  const formatBytes = Buffer.alloc(4);
  formatBytes.writeUInt32LE(format, 0);
  return Buffer.concat([Buffer.from('dashcdSt', 'latin1'), formatBytes, createHash('sha256').update(rest).digest(), rest]);
}

describe('file stamps', () => {
  it('stampOf keeps exactly size, times, inode and device', () => {
    const stats = { ...STAMP, atimeMs: 5, blocks: 8, mode: 0o644, isFile: () => true };
    expect(stampOf(stats)).toStrictEqual(STAMP);
  });

  it('a stamp is the same only when every member is', () => {
    expect(sameStamp(STAMP, { ...STAMP })).toBe(true);
    for (const key of ['size', 'mtimeMs', 'ctimeMs', 'ino', 'dev'] as const) {
      expect(sameStamp(STAMP, { ...STAMP, [key]: STAMP[key] + 1 }), key).toBe(false);
      expect(sameStamp({ ...STAMP, [key]: STAMP[key] - 0.001 }, STAMP), key).toBe(false);
    }
  });

  it('is settled only when both times are more than SETTLED_MS before it was taken', () => {
    const stamp = { ...STAMP, mtimeMs: 1_000_000, ctimeMs: 1_000_000 };
    expect(isSettled(stamp, 1_000_000 + SETTLED_MS + 1)).toBe(true);
    expect(isSettled(stamp, 1_000_000 + SETTLED_MS)).toBe(false);
    expect(isSettled({ ...stamp, mtimeMs: 1_000_001 }, 1_000_000 + SETTLED_MS + 1)).toBe(false);
    expect(isSettled({ ...stamp, ctimeMs: 1_000_001 }, 1_000_000 + SETTLED_MS + 1)).toBe(false);
    expect(isSettled({ ...stamp, mtimeMs: 0 }, 1_000_000 + SETTLED_MS + 1)).toBe(true);
    expect(SETTLED_MS).toBeGreaterThanOrEqual(2_000);
  });

  it('round-trips entries exactly, fractions of a millisecond and large inodes included', () => {
    const decoded = decodeFileStamps(encodeFileStamps(ENTRIES));
    expect(decoded && [...decoded]).toStrictEqual(ENTRIES);
    expect(decodeFileStamps(encodeFileStamps([]))?.size).toBe(0);
  });

  it('a damaged, truncated, lengthened or foreign file reads as no stamps', () => {
    const whole = encodeFileStamps(ENTRIES);
    const rest = whole.subarray(44);
    const damaged: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['the magic and part of the format', whole.subarray(0, 10)],
      ['the magic and the format only', whole.subarray(0, 12)],
      ['header only', whole.subarray(0, 44)],
      ['truncated', whole.subarray(0, whole.length - 1)],
      ['flipped byte', Buffer.from(whole.map((b, i) => (i === whole.length - 9 ? b ^ 0x01 : b)))],
      ['another magic', Buffer.concat([Buffer.from('dashcdCk', 'latin1'), whole.subarray(8)])],
      ['another format', fileAround(rest, 2)],
      ['entries cut short, checksum right', fileAround(rest.subarray(0, rest.length - 8))],
      ['bytes after the entries, checksum right', fileAround(Buffer.concat([rest, Buffer.from([0])]))],
      ['a count larger than the entries, checksum right', fileAround(Buffer.concat([Buffer.from([3, 0, 0, 0]), rest.subarray(4)]))],
      ['a name longer than the file, checksum right', fileAround(Buffer.from([1, 0, 0, 0, 0xff, 0xff, 0, 0]))],
    ];
    for (const [what, bytes] of damaged) expect(decodeFileStamps(bytes), what).toBeUndefined();
    expect(decodeFileStamps(fileAround(rest))?.size).toBe(2);
  });
});

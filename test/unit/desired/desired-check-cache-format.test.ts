import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeCheckCache, encodeCheckCache } from '../../../src/desired/check-cache-format.js';
import type { PackedCheck } from '../../../src/desired/packed-check.js';

const KEY = createHash('sha256').update('the check code').digest();
const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

const CLASSIC: PackedCheck = { ok: true, fileId: undefined, name: 'Checkout', hasEnvironmentOverrides: false, bodyJson: '{"dashboardMetadata":{"name":"Checkout"},"tiles":[]}' };
const DOCUMENT: PackedCheck = {
  ok: true,
  kind: 'document',
  fileId: 'hosts-overview',
  name: 'Hosts ü ✓ 🚀',
  hasEnvironmentOverrides: true,
  bodyJson: '{"document":{"name":"Hosts ü ✓ 🚀","type":"dashboard"},"content":{"tiles":{}}}',
  warnings: [{ line: 3, col: 5, path: 'document.nmae', message: 'unknown key nmae (did you mean name?)' }],
};
const INVALID: PackedCheck = { ok: false, problems: [{ line: 2, col: 3, path: 'dashboardMetadata.owner', message: 'Required' }] };
const ENTRIES: [string, PackedCheck][] = [
  [hashOf('a'), CLASSIC],
  [hashOf('b'), DOCUMENT],
  [hashOf('c'), INVALID],
];

/** A file of this layout around any entries block, with a valid checksum: what a broken writer would leave. */
function fileAround(block: Buffer, length = block.length): Buffer {
  const lengthBytes = Buffer.alloc(6);
  lengthBytes.writeUIntLE(length, 0, 6);
  const rest = Buffer.concat([lengthBytes, deflateRawSync(block)]);
  const format = Buffer.alloc(4);
  format.writeUInt32LE(1, 0);
  return Buffer.concat([Buffer.from('dashcdCk', 'latin1'), format, KEY, createHash('sha256').update(rest).digest(), rest]);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value, 0);
  return out;
}

describe('check cache file format', () => {
  it('reads back every kind of check exactly: valid classic, document with warnings and non-ASCII text, invalid', async () => {
    const decoded = await decodeCheckCache(encodeCheckCache(KEY, ENTRIES), KEY);
    expect(decoded).toEqual(new Map(ENTRIES));
    expect([...(decoded as Map<string, PackedCheck>).keys()]).toEqual(ENTRIES.map(([hash]) => hash));
  });

  it('an empty cache reads back empty, not as no file', async () => {
    expect(await decodeCheckCache(encodeCheckCache(KEY, []), KEY)).toEqual(new Map());
  });

  it('a file written for other check code reads as no file', async () => {
    const other = createHash('sha256').update('other check code').digest();
    expect(await decodeCheckCache(encodeCheckCache(other, ENTRIES), KEY)).toBeUndefined();
  });

  it('another format version or another magic reads as no file', async () => {
    const bytes = encodeCheckCache(KEY, ENTRIES);
    const format = Buffer.from(bytes);
    format.writeUInt32LE(2, 8);
    expect(await decodeCheckCache(format, KEY)).toBeUndefined();
    const magic = Buffer.from(bytes);
    magic.write('dashcdCx', 0, 'latin1');
    expect(await decodeCheckCache(magic, KEY)).toBeUndefined();
  });

  it('every truncation reads as no file, down to an empty one', async () => {
    const bytes = encodeCheckCache(KEY, ENTRIES);
    for (let length = 0; length < bytes.length; length++) expect(await decodeCheckCache(bytes.subarray(0, length), KEY)).toBeUndefined();
  });

  it('any flipped byte after the header reads as no file (the checksum), as do bytes appended', async () => {
    const bytes = encodeCheckCache(KEY, ENTRIES);
    for (let at = 76; at < bytes.length; at++) {
      const damaged = Buffer.from(bytes);
      damaged[at] = (damaged[at] as number) ^ 0x20;
      expect(await decodeCheckCache(damaged, KEY)).toBeUndefined();
    }
    expect(await decodeCheckCache(Buffer.concat([bytes, Buffer.from([0])]), KEY)).toBeUndefined();
  });

  it('a damaged checksum reads as no file', async () => {
    const damaged = encodeCheckCache(KEY, ENTRIES);
    damaged[44] = (damaged[44] as number) ^ 1;
    expect(await decodeCheckCache(damaged, KEY)).toBeUndefined();
  });

  it('entries that do not fit their block read as no file, even under a valid checksum', async () => {
    const meta = '{"ok":false,"problems":[]}';
    const entry = Buffer.concat([Buffer.alloc(32, 1), u32(meta.length), Buffer.from(meta), u32(0)]);
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), entry])), KEY)).toEqual(new Map([['01'.repeat(32), { ok: false, problems: [] }]]));
    // One entry announced, none there; one too many; bytes left over; a length past the end; text that is no JSON.
    expect(await decodeCheckCache(fileAround(u32(1)), KEY)).toBeUndefined();
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(2), entry])), KEY)).toBeUndefined();
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), entry, Buffer.from([0])])), KEY)).toBeUndefined();
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), Buffer.alloc(32), u32(50), Buffer.from('{}'), u32(0)])), KEY)).toBeUndefined();
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), Buffer.alloc(32), u32(2), Buffer.from('{x'), u32(0)])), KEY)).toBeUndefined();
    // A wrong length in the header only sizes the output buffer: the entries still decide.
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), entry]), 3), KEY)).toEqual(new Map([['01'.repeat(32), { ok: false, problems: [] }]]));
  });

  it('an entry of another shape, under a valid checksum, reads as no file (it would fail far from here)', async () => {
    const file = (meta: object, bodyJson = ''): Buffer =>
      fileAround(Buffer.concat([u32(1), Buffer.alloc(32, 1), u32(Buffer.byteLength(JSON.stringify(meta))), Buffer.from(JSON.stringify(meta)), u32(bodyJson.length), Buffer.from(bodyJson)]));
    const valid = { ok: true, name: 'n', hasEnvironmentOverrides: false };
    expect(await decodeCheckCache(file(valid, '{}'), KEY)).toEqual(new Map([['01'.repeat(32), { ...valid, bodyJson: '{}' }]]));
    // A valid check without its body, or without its name, flags or with a kind that does not exist.
    expect(await decodeCheckCache(file({ ok: true }), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file(valid), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ...valid, name: 7 }, '{}'), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ok: true, name: 'n' }, '{}'), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ...valid, fileId: 3 }, '{}'), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ...valid, kind: 'launchpad' }, '{}'), KEY)).toBeUndefined();
    // Problems and warnings that cannot be printed; a check that is neither valid nor invalid; not an object.
    expect(await decodeCheckCache(file({ ok: false, problems: [{ line: 1 }] }), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ok: false }), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ...valid, warnings: 'w' }, '{}'), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ok: 'yes', problems: [] }), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ...valid, ok: 'yes' }, '{}'), KEY)).toBeUndefined();
    expect(await decodeCheckCache(file({ ok: false, problems: [null] }), KEY)).toBeUndefined();
    expect(await decodeCheckCache(fileAround(Buffer.concat([u32(1), Buffer.alloc(32, 1), u32(4), Buffer.from('null'), u32(0)])), KEY)).toBeUndefined();
  });

  it('a file shorter than the length field reads as no file', async () => {
    const rest = Buffer.from([1, 2, 3]);
    const format = Buffer.alloc(4);
    format.writeUInt32LE(1, 0);
    const bytes = Buffer.concat([Buffer.from('dashcdCk', 'latin1'), format, KEY, createHash('sha256').update(rest).digest(), rest]);
    expect(await decodeCheckCache(bytes, KEY)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { bytesOf, deflateOnHeap, holdOnHeap, inflateFromHeap, packOnHeap, unpackFromHeap } from '../../../src/lib/heap-bytes.js';

describe('heap bytes', () => {
  it('gives back every byte value exactly, one character per byte, UTF-8 or not', () => {
    const every = Buffer.from(Array.from({ length: 512 }, (_, n) => (n * 7) % 256));
    const held = holdOnHeap(every);
    expect(held).toHaveLength(every.length);
    expect(bytesOf(held).equals(every)).toBe(true);
  });

  it('holds only the view it is given, and a copy of it: changing either side later changes neither the other', () => {
    const whole = Buffer.from('{"a":"é"}xyz');
    const view = new Uint8Array(whole.buffer, whole.byteOffset, whole.length - 3);
    const held = holdOnHeap(view);
    whole.fill(0x20);
    const out = bytesOf(held);
    expect(out.toString('utf8')).toBe('{"a":"é"}');
    out.fill(0x20);
    expect(bytesOf(held).toString('utf8')).toBe('{"a":"é"}');
  });

  it('deflates bytes it keeps (smaller when they repeat) and gives them back exactly, every byte value', () => {
    const json = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, n) => ({ name: `tile ${n}`, bounds: { top: n, left: 0 } }))));
    const kept = deflateOnHeap(json);
    expect(kept.length).toBeLessThan(json.length / 4);
    expect(inflateFromHeap(kept).equals(json)).toBe(true);
    const every = Buffer.from(Array.from({ length: 256 }, (_, n) => n));
    expect(inflateFromHeap(deflateOnHeap(every)).equals(every)).toBe(true);
  });

  it('packs a value as structuredClone would copy it, and each unpack is a fresh copy', () => {
    const value = { when: new Date(0), tags: new Set(['a']), n: -0, missing: undefined, nested: [{ x: 'é' }] };
    const kept = packOnHeap(value);
    const first = unpackFromHeap(kept) as typeof value;
    expect(first).toStrictEqual(structuredClone(value));
    expect(Object.is(first.n, -0)).toBe(true);
    first.nested[0]!.x = 'changed';
    expect((unpackFromHeap(kept) as typeof value).nested[0]!.x).toBe('é');
  });
});

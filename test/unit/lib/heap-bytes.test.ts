import { describe, expect, it } from 'vitest';
import { bytesOf, holdOnHeap } from '../../../src/lib/heap-bytes.js';

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
});

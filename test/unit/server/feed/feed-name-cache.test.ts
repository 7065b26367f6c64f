import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { NameCache } from '../../../../src/server/feed/name-cache.js';

/** `text` in the middle of other bytes, as a name lies inside a log line. */
function inLine(text: string): { buf: Buffer; start: number; end: number } {
  const before = Buffer.from('{"eventType":"');
  const name = Buffer.from(text);
  return { buf: Buffer.concat([before, name, Buffer.from('"}')]), start: before.length, end: before.length + name.length };
}

/** Looks `text` up from fresh bytes; says whether the cache had to decode it (a miss). */
function decodes(cache: NameCache, text: string): boolean {
  const { buf, start, end } = inLine(text);
  const decode = vi.spyOn(buf, 'toString');
  expect(cache.textOf(buf, start, end)).toBe(text);
  return decode.mock.calls.length > 0;
}

describe('name cache', () => {
  it('decodes the UTF-8 text of the range, whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 30 }), fc.integer({ min: 0, max: 4 }), (texts, bits) => {
        const cache = new NameCache(1 << bits, 16);
        for (const text of [...texts, ...texts.reverse()]) {
          const { buf, start, end } = inLine(text);
          expect(cache.textOf(buf, start, end)).toBe(text);
        }
      }),
    );
  });

  it('decodes a name it has seen once only: the same bytes again make no new string', () => {
    const cache = new NameCache();
    const first = inLine('HOST-BDE39FC4A69723FF');
    const text = cache.textOf(first.buf, first.start, first.end);
    const again = inLine('HOST-BDE39FC4A69723FF');
    const decode = vi.spyOn(again.buf, 'toString');
    expect(cache.textOf(again.buf, again.start, again.end)).toBe(text);
    expect(decode).not.toHaveBeenCalled();
  });

  it('keeps names apart that differ only at the start, only at the end, or only in length', () => {
    // Each set fits the cache many times over: a name evicting another here means the hash ignored where they differ.
    const sets = [
      ['A-SAME-LONG-MIDDLE-TAIL', 'B-SAME-LONG-MIDDLE-TAIL', 'C-SAME-LONG-MIDDLE-TAIL', 'D-SAME-LONG-MIDDLE-TAIL'],
      ['HOST-0000000000000001', 'HOST-0000000000000002', 'HOST-0000000000000003', 'HOST-0000000000000004'],
      ['PROCESS', 'PROCESS_', 'PROCESS__', 'PROCESS___'],
    ];
    for (const names of sets) {
      const cache = new NameCache(64);
      for (const name of names) expect(decodes(cache, name)).toBe(true);
      for (const name of names) expect(decodes(cache, name)).toBe(false);
    }
  });

  it('knows a name again whatever bytes lie around it', () => {
    const cache = new NameCache(64);
    for (const name of ['AB', 'HOST-0000000000000001']) {
      const first = Buffer.from(`"${name}"}`);
      expect(cache.textOf(first, 1, 1 + name.length)).toBe(name);
      const again = Buffer.from(`xx${name}0123456789`);
      const decode = vi.spyOn(again, 'toString');
      expect(cache.textOf(again, 2, 2 + name.length)).toBe(name);
      expect(decode).not.toHaveBeenCalled();
    }
  });

  it('keeps a name exactly as long as it may, and decodes a longer one every time', () => {
    const cache = new NameCache(16, 8);
    expect(decodes(cache, 'EIGHT_BY')).toBe(true);
    expect(decodes(cache, 'EIGHT_BY')).toBe(false);
    expect(decodes(cache, 'NINE_BYTE')).toBe(true);
    expect(decodes(cache, 'NINE_BYTE')).toBe(true);
  });

  it('keeps its own copy of the bytes, so a reused scan buffer does not change a kept name', () => {
    const cache = new NameCache(1);
    const buf = Buffer.from('PROCESS_RESTART');
    expect(cache.textOf(buf, 0, buf.length)).toBe('PROCESS_RESTART');
    buf.write('CUSTOM_ALERT!!!');
    expect(cache.textOf(buf, 0, buf.length)).toBe('CUSTOM_ALERT!!!');
    buf.write('PROCESS_RESTART');
    expect(cache.textOf(buf, 0, buf.length)).toBe('PROCESS_RESTART');
  });

  it('tells apart names of one slot that differ in one byte or in length', () => {
    const cache = new NameCache(1);
    const names = ['HOST-1', 'HOST-2', 'HOST-12', 'HOST-1', 'HOST-', '', 'HOST-1'];
    for (const name of names) {
      const { buf, start, end } = inLine(name);
      expect(cache.textOf(buf, start, end)).toBe(name);
    }
  });

  it('decodes names longer than it keeps every time, and says what a bad slot count is', () => {
    const cache = new NameCache(4, 4);
    const long = inLine('LONGER');
    expect(cache.textOf(long.buf, long.start, long.end)).toBe('LONGER');
    long.buf.write('Z', long.start);
    expect(cache.textOf(long.buf, long.start, long.end)).toBe('ZONGER');
    expect(() => new NameCache(3)).toThrow('name cache slots must be a power of two, not 3');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeEvent, fieldsOfLine } from '../../../../src/server/feed/event-record.js';
import { digitsOf, newEventId, parseEncodedEventId, parseEventIdDigits, stringifyWithBigInts, wordsOf } from '../../../../src/server/feed/int64.js';

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

describe('64-bit event ids', () => {
  it('round-trip between digits and words for every int64, and order like int64', () => {
    fc.assert(
      fc.property(int64, int64, (a, b) => {
        const wa = parseEventIdDigits(a.toString());
        const wb = wordsOf(b);
        expect(wa).toEqual(wordsOf(a));
        expect(digitsOf(wb.hi, wb.lo)).toBe(b.toString());
        const wordOrder = wa && (wa.hi !== wb.hi ? wa.hi - wb.hi : wa.lo - wb.lo);
        expect(Math.sign(wordOrder ?? 0)).toBe(a === b ? 0 : a < b ? -1 : 1);
      }),
    );
  });

  it('read the same words from a stored line (byte scanner) as from BigInt', () => {
    fc.assert(
      fc.property(int64, fc.integer({ min: 0, max: 2 ** 45 }), (id, start) => {
        const encoded = encodeEvent({ id: `${id}_${start}`, startTime: start, eventType: 'CUSTOM_INFO' });
        expect(encoded.ok).toBe(true);
        if (!encoded.ok) return;
        const bytes = Buffer.from(encoded.event.text);
        expect(fieldsOfLine(bytes, 0, bytes.length)).toEqual({ ...wordsOf(id), startTime: start, endTime: undefined, eventType: 'CUSTOM_INFO', entityId: undefined });
      }),
    );
  });

  it('refuses non-canonical or out-of-range digits', () => {
    for (const bad of ['', '-', '-0', '01', '+1', '9223372036854775808', '-9223372036854775809', '1e3', '12345678901234567890']) {
      expect(parseEventIdDigits(bad)).toBeUndefined();
    }
    expect(parseEventIdDigits('-9223372036854775808')).toEqual({ hi: -0x80000000, lo: 0 });
    expect(parseEncodedEventId('5_0012')).toBeUndefined();
    expect(parseEncodedEventId('-4314211936928920170_1654148872269')).toMatchObject({ eventId: '-4314211936928920170', startTime: 1654148872269 });
  });

  it('take both ends of the int64 range, and start times up to the largest safe integer', () => {
    expect(parseEventIdDigits('9223372036854775807')).toEqual({ hi: 0x7fffffff, lo: 0xffffffff });
    expect(parseEventIdDigits('-1')).toEqual({ hi: -1, lo: 0xffffffff });
    expect(digitsOf(-1, 0xffffffff)).toBe('-1');
    expect(digitsOf(-1, -1)).toBe('-1');
    expect(parseEncodedEventId('1_9007199254740991')).toMatchObject({ eventId: '1', startTime: 9_007_199_254_740_991 });
    expect(parseEncodedEventId('1_9007199254740992')).toBeUndefined();
    expect(parseEncodedEventId('9223372036854775808_1')).toBeUndefined();
    expect(parseEncodedEventId('8663164135574257870_1628095127627')).toEqual({
      eventId: '8663164135574257870',
      startTime: 1628095127627,
      words: parseEventIdDigits('8663164135574257870'),
    });
  });

  it('are made from 8 random bytes as a signed big-endian int64', () => {
    expect(newEventId(() => Buffer.alloc(8, 0xff))).toBe('-1');
    expect(newEventId(() => Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0]))).toBe('-9223372036854775808');
    expect(newEventId(() => Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toBe('9223372036854775807');
    expect(newEventId(() => Buffer.from([0, 0, 0, 0, 0, 0, 1, 0]))).toBe('256');
  });

  it('are generated as random canonical int64 digits', () => {
    const ids = Array.from({ length: 200 }, () => newEventId());
    for (const id of ids) expect(parseEventIdDigits(id)).toBeDefined();
    expect(ids.some((id) => id.startsWith('-'))).toBe(true);
    expect(new Set(ids).size).toBe(200);
  });

  it('are written as bare digits by the BigInt-safe JSON writer', () => {
    const text = stringifyWithBigInts({ storedEventIds: [-4314211936928920170n, 7n], name: 'x', nested: { id: 2n ** 63n - 1n } });
    expect(text).toBe('{"storedEventIds":[-4314211936928920170,7],"name":"x","nested":{"id":9223372036854775807}}');
  });

  it('are written as bare digits however many a value holds, and strings shaped like placeholders stay strings', () => {
    const ids = Array.from({ length: 12 }, (_, i) => BigInt(i) - 6n);
    expect(stringifyWithBigInts({ ids })).toBe('{"ids":[-6,-5,-4,-3,-2,-1,0,1,2,3,4,5]}');
    const lookalike = '\u0000abcdef012345:0\u0000';
    expect(stringifyWithBigInts({ text: lookalike, id: 1n })).toBe(`{"text":${JSON.stringify(lookalike)},"id":1}`);
    expect(stringifyWithBigInts({ text: lookalike })).toBe(JSON.stringify({ text: lookalike }));
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENTS_WINDOW_MS, MAX_EVENTS_TIMEFRAME_MS, RELATIVE_TIMES } from '../../../../src/schema/events.js';
import { decodeCursor, encodeCursor, type CursorState } from '../../../../src/server/feed/cursor.js';
import { parseFeedQuery, type FeedRequest } from '../../../../src/server/feed/feed-query.js';
import { wordsOf } from '../../../../src/server/feed/int64.js';
import { HttpError } from '../../../../src/server/http/http-error.js';

const NOW = 1_700_000_000_000;
const KEY = Buffer.alloc(32, 7);

function parse(query: string): FeedRequest {
  return parseFeedQuery(new URLSearchParams(query), NOW, KEY, 'local');
}

function violations(query: string): Array<{ path: unknown; parameterLocation: unknown }> {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const httpError = error as HttpError;
    expect(httpError.status).toBe(400);
    expect(httpError.message).toBe('Constraints violated.');
    return (httpError.violations ?? []).map(({ path, parameterLocation }) => ({ path, parameterLocation }));
  }
  throw new Error(`expected ${query} to be refused`);
}

/** The violations of a refused query with their messages. */
function messages(query: string): string[] {
  try {
    parse(query);
  } catch (error) {
    return ((error as HttpError).violations ?? []).map(({ path, message }) => `${path}: ${message}`);
  }
  throw new Error(`expected ${query} to be refused`);
}

/** A cursor body signed as the server signs it (HMAC-SHA256 over `<env>\n<body>`, first 16 bytes, base64url). */
function signed(payload: unknown, env = 'local'): string {
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', KEY).update(`${env}\n${body}`).digest().subarray(0, 16).toString('base64url')}`;
}

function filterOf(query: string): unknown {
  const request = parse(query);
  if (request.kind !== 'first') throw new Error('expected a first page');
  return request.filter;
}

const STATE: CursorState = {
  filter: { from: NOW - 1000, to: NOW, eventType: 'CPU_SATURATED', entityId: 'HOST-1' },
  watermark: 42,
  total: 300,
  after: { start: NOW - 10, ...wordsOf(-4314211936928920170n) },
};

describe('list-events query rules', () => {
  it('defaults to the last 30 days ending now', () => {
    expect(filterOf('')).toEqual({ from: NOW - DEFAULT_EVENTS_WINDOW_MS, to: NOW, eventType: undefined, entityId: undefined });
  });

  it('takes relativeTime as a window ending now, for each of the twelve values', () => {
    expect(Object.keys(RELATIVE_TIMES)).toHaveLength(12);
    expect(filterOf('relativeTime=2hours')).toMatchObject({ from: NOW - 7_200_000, to: NOW });
    expect(filterOf('relativeTime=min')).toMatchObject({ from: NOW - 60_000 });
    expect(filterOf('relativeTime=month')).toMatchObject({ from: NOW - 30 * 86_400_000 });
  });

  it('lets explicit from and to win over relativeTime and keeps filters', () => {
    expect(filterOf(`relativeTime=hour&from=${NOW - 5}&eventType=SLOW_DISK&entityId=HOST-9`)).toEqual({
      from: NOW - 5, to: NOW, eventType: 'SLOW_DISK', entityId: 'HOST-9',
    });
  });

  it('treats empty parameters as absent', () => {
    expect(filterOf('from=&to=&eventType=&cursor=')).toMatchObject({ from: NOW - DEFAULT_EVENTS_WINDOW_MS, eventType: undefined });
  });

  it('accepts exactly 2 years and refuses one millisecond more', () => {
    expect(filterOf(`from=${NOW - MAX_EVENTS_TIMEFRAME_MS}&to=${NOW}`)).toMatchObject({ from: NOW - MAX_EVENTS_TIMEFRAME_MS });
    expect(violations(`from=${NOW - MAX_EVENTS_TIMEFRAME_MS - 1}&to=${NOW}`)).toEqual([{ path: 'from', parameterLocation: 'QUERY' }]);
  });

  it('refuses from after to, unknown event types and relative times, and non-numeric times', () => {
    expect(violations(`from=${NOW}&to=${NOW - 1}`)).toEqual([{ path: 'from', parameterLocation: 'QUERY' }]);
    expect(violations('eventType=NOT_A_TYPE')).toEqual([{ path: 'eventType', parameterLocation: 'QUERY' }]);
    expect(violations('relativeTime=year')).toEqual([{ path: 'relativeTime', parameterLocation: 'QUERY' }]);
    expect(violations(`entityId=${'H'.repeat(501)}`)).toEqual([{ path: 'entityId', parameterLocation: 'QUERY' }]);
    expect(violations('from=yesterday&to=-5')).toEqual([
      { path: 'from', parameterLocation: 'QUERY' },
      { path: 'to', parameterLocation: 'QUERY' },
    ]);
  });
});

describe('list-events query messages', () => {
  it('say what is wrong with each parameter and how to fix it', () => {
    expect(messages('from=yesterday')).toEqual(["from: 'yesterday' is not a timestamp: give UTC milliseconds since the epoch, e.g. 1521042929000."]);
    expect(messages('eventType=NOT_A_TYPE')).toEqual(["eventType: Unknown event type 'NOT_A_TYPE': use one of the event types listed for the events API."]);
    expect(messages('relativeTime=year')).toEqual([
      "relativeTime: Unknown relativeTime 'year': use one of min, 5mins, 10mins, 15mins, 30mins, hour, 2hours, 6hours, day, 3days, week, month.",
    ]);
    expect(messages(`entityId=${'H'.repeat(501)}`)).toEqual(['entityId: The entity id is longer than 500 characters.']);
    expect(messages(`from=${NOW}&to=${NOW - 1}`)).toEqual([`from: from (${NOW}) is after to (${NOW - 1}).`]);
    expect(messages(`from=${NOW - MAX_EVENTS_TIMEFRAME_MS - 1}&to=${NOW}`)).toEqual([
      `from: The timeframe from ${NOW - MAX_EVENTS_TIMEFRAME_MS - 1} to ${NOW} exceeds 2 years (63072000000 ms): query shorter windows.`,
    ]);
  });

  it('quote at most 120 characters of a bad value, with its length', () => {
    expect(messages(`eventType=${'X'.repeat(120)}`)).toEqual([`eventType: Unknown event type '${'X'.repeat(120)}': use one of the event types listed for the events API.`]);
    expect(messages(`eventType=${'X'.repeat(5000)}`)).toEqual([`eventType: Unknown event type '${'X'.repeat(120)}… (5,000 characters)': use one of the event types listed for the events API.`]);
    expect(messages(`relativeTime=${'y'.repeat(121)}`)[0]).toMatch(/^relativeTime: Unknown relativeTime 'y{120}… \(121 characters\)': use one of /);
  });

  it('check the window only once every parameter could be read', () => {
    expect(violations(`eventType=NOT_A_TYPE&from=${NOW}&to=${NOW - 1}`)).toEqual([{ path: 'eventType', parameterLocation: 'QUERY' }]);
    expect(violations(`relativeTime=year&from=${NOW - MAX_EVENTS_TIMEFRAME_MS - 1}`)).toEqual([{ path: 'relativeTime', parameterLocation: 'QUERY' }]);
  });
});

describe('list-events time parameters', () => {
  it('take a window of a single millisecond', () => {
    expect(filterOf(`from=${NOW}&to=${NOW}`)).toMatchObject({ from: NOW, to: NOW });
  });

  it('take UTC milliseconds written as plain digits only', () => {
    for (const bad of ['1e3', '0x10', '%205', '5%20', '1.5', '12345678901234567', '9007199254740993']) {
      expect(violations(`from=${bad}`)).toEqual([{ path: 'from', parameterLocation: 'QUERY' }]);
    }
    expect(filterOf('from=0&to=0')).toMatchObject({ from: 0, to: 0 });
    expect(filterOf('from=9007199254740990&to=9007199254740991')).toMatchObject({ from: 9_007_199_254_740_990, to: 9_007_199_254_740_991 });
  });

  it('take entity ids up to 500 characters', () => {
    expect(filterOf(`entityId=${'H'.repeat(500)}`)).toMatchObject({ entityId: 'H'.repeat(500) });
  });

  it('know relativeTime values only by their own names, not by inherited ones', () => {
    expect(violations('relativeTime=toString')).toEqual([{ path: 'relativeTime', parameterLocation: 'QUERY' }]);
    expect(violations('relativeTime=constructor')).toEqual([{ path: 'relativeTime', parameterLocation: 'QUERY' }]);
  });
});

describe('cursors', () => {
  it('carry no filter that was not given', () => {
    const state: CursorState = { ...STATE, filter: { from: NOW - 1000, to: NOW } };
    const cursor = encodeCursor(state, KEY, 'local', '7');
    expect(JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString())).toEqual({ v: 1, f: NOW - 1000, t: NOW, w: 42, n: 300, s: NOW - 10, i: '7' });
    expect(decodeCursor(cursor, KEY, 'local').filter).toEqual({ from: NOW - 1000, to: NOW, eventType: undefined, entityId: undefined });
  });

  it('are signed as HMAC-SHA256/128 of the environment and the body', () => {
    const cursor = encodeCursor(STATE, KEY, 'local', '-4314211936928920170');
    const payload = JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString()) as unknown;
    expect(signed(payload)).toBe(cursor);
  });

  it('signed but not of this server’s shape are refused as invalid, not failed on', () => {
    const good = { v: 1, f: 0, t: 10, w: 1, n: 1, s: 5, i: '7' };
    for (const payload of [{ ...good, v: 2 }, { ...good, f: -1 }, { ...good, i: '07' }, { ...good, i: '9223372036854775808' }, { ...good, s: 1.5 }, 'not json', '[]']) {
      expect(() => decodeCursor(signed(payload), KEY, 'local')).toThrow(HttpError);
    }
    expect(decodeCursor(signed(good), KEY, 'local')).toEqual({ filter: { from: 0, to: 10, eventType: undefined, entityId: undefined }, watermark: 1, total: 1, after: { start: 5, hi: 0, lo: 7 } });
  });

  it('are refused without a body, without a signature, or longer than 4096 characters even when signed', () => {
    const cursor = encodeCursor(STATE, KEY, 'local', '1');
    const [, mac = ''] = cursor.split('.');
    expect(violations(`cursor=.${mac}`)).toEqual([{ path: 'cursor', parameterLocation: 'QUERY' }]);
    expect(violations(`cursor=${cursor.split('.')[0]}.`)).toEqual([{ path: 'cursor', parameterLocation: 'QUERY' }]);
    const long = encodeCursor({ ...STATE, filter: { ...STATE.filter, eventType: 'X'.repeat(3050) } }, KEY, 'local', '1');
    expect(long.length).toBeGreaterThan(4096);
    expect(() => decodeCursor(long, KEY, 'local')).toThrow(HttpError);
    const fits = encodeCursor({ ...STATE, filter: { ...STATE.filter, eventType: 'X'.repeat(2900) } }, KEY, 'local', '1');
    expect(fits.length).toBeLessThanOrEqual(4096);
    expect(decodeCursor(fits, KEY, 'local').filter.eventType).toBe('X'.repeat(2900));
  });

  it('tell the caller how to recover', () => {
    expect(messages('cursor=garbage')).toEqual(['cursor: The cursor is not valid: pass the nextCursor of a previous response unchanged, or omit it to start over.']);
  });

  it('round-trip the query, watermark, total and keyset position', () => {
    const cursor = encodeCursor(STATE, KEY, 'local', '-4314211936928920170');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, KEY, 'local')).toEqual(STATE);
  });

  it('make every other parameter irrelevant, even invalid ones', () => {
    const cursor = encodeCursor(STATE, KEY, 'local', '-4314211936928920170');
    expect(parse(`cursor=${cursor}&eventType=NOT_A_TYPE&from=${NOW}&to=1`)).toEqual({ kind: 'next', state: STATE });
  });

  it('are refused when tampered with, truncated, malformed, signed with another key or for another environment', () => {
    const cursor = encodeCursor(STATE, KEY, 'local', '-4314211936928920170');
    const [body = '', mac = ''] = cursor.split('.');
    const forged = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    forged['w'] = 10 ** 9;
    const refused = [
      `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`,
      cursor.slice(0, -2),
      body,
      'AgEBAAFn5IIFrgEAAAFofwDTrgAAAQAcMTY4N2RhYzViZTAtZmUxODEwOWQ5YTA1MTIyNQ==',
      `${cursor}.x`,
      encodeCursor(STATE, Buffer.alloc(32, 8), 'local', '1'),
    ];
    for (const bad of refused) expect(violations(`cursor=${encodeURIComponent(bad)}`)).toEqual([{ path: 'cursor', parameterLocation: 'QUERY' }]);
    expect(() => decodeCursor(cursor, KEY, 'prod')).toThrow(HttpError);
  });

  it('issued here are taken back as issued (the same state) while among the last 1,024, checked again once forgotten', () => {
    const key = Buffer.alloc(32, 4);
    const kept = encodeCursor(STATE, key, 'local', '-4314211936928920170');
    expect(decodeCursor(kept, key, 'local')).toBe(decodeCursor(kept, key, 'local'));
    for (let i = 0; i < 1023; i++) encodeCursor({ ...STATE, total: i }, key, 'local', String(i));
    expect(decodeCursor(kept, key, 'local')).toBe(decodeCursor(kept, key, 'local'));
    encodeCursor({ ...STATE, total: 5000 }, key, 'local', '5000');
    const checked = decodeCursor(kept, key, 'local');
    expect(checked).not.toBe(decodeCursor(kept, key, 'local'));
    expect(checked).toEqual(STATE);
    // Every key keeps its own: another key's cursors do not push these out.
    const other = encodeCursor(STATE, Buffer.alloc(32, 5), 'local', '1');
    const recent = encodeCursor({ ...STATE, total: 6000 }, key, 'local', '6000');
    expect(decodeCursor(recent, key, 'local')).toBe(decodeCursor(recent, key, 'local'));
    expect(decodeCursor(other, Buffer.alloc(32, 5), 'local')).toEqual({ ...STATE, after: { start: STATE.after.start, ...wordsOf(1n) } });
  });

  it('issued here decode to the state they were issued for, before and after the issuer has forgotten them', () => {
    const key = Buffer.alloc(32, 3);
    const cursor = encodeCursor(STATE, key, 'local', '-4314211936928920170');
    expect(decodeCursor(cursor, key, 'local')).toEqual(STATE);
    // Another environment's request with this environment's cursor is refused whether or not it was issued lately.
    expect(() => decodeCursor(cursor, key, 'prod')).toThrow(HttpError);
    for (let i = 0; i < 1100; i++) encodeCursor({ ...STATE, total: i }, key, 'local', String(i));
    expect(decodeCursor(cursor, key, 'local')).toEqual(STATE);
    expect(() => decodeCursor(cursor, key, 'prod')).toThrow(HttpError);
    // A key that never issued a cursor: a full check, not a failed lookup.
    expect(() => decodeCursor(cursor, Buffer.alloc(32, 9), 'local')).toThrow(HttpError);
    const withFilters: CursorState = { ...STATE, filter: { from: 1, to: 2, eventType: 'CUSTOM_INFO', entityId: 'HOST-1' } };
    expect(decodeCursor(encodeCursor(withFilters, key, 'local', '-4314211936928920170'), key, 'local')).toEqual(withFilters);
  });
});

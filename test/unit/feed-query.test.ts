import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENTS_WINDOW_MS, MAX_EVENTS_TIMEFRAME_MS, RELATIVE_TIMES } from '../../src/schema/events.js';
import { decodeCursor, encodeCursor, type CursorState } from '../../src/server/feed/cursor.js';
import { parseFeedQuery, type FeedRequest } from '../../src/server/feed/feed-query.js';
import { wordsOf } from '../../src/server/feed/int64.js';
import { HttpError } from '../../src/server/http/http-error.js';

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

describe('cursors', () => {
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
});

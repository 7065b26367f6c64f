import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import { cursorParams, parseFeedPage, windowParams } from '../../../src/archive/feed-page-parse.js';
import { JsonScanError } from '../../../src/lib/json-split.js';
import { CORPUS_DIR } from '../../helpers/corpus.js';

/** The specification's EventQueryResult example, as published (pretty-printed). */
const SPEC_PAGE = readFileSync(join(CORPUS_DIR, 'events/dt-openapi-env-v1-1.254__EventQueryResult-example.json'), 'utf8');
const SPEC_CURSOR = 'AgEBAAFn5IIFrgEAAAFofwDTrgAAAQAcMTY4N2RhYzViZTAtZmUxODEwOWQ5YTA1MTIyNQ%3D%3D';
const META = '"totalEventCount":2,"from":1521042929000,"to":1521542929000';

function badPage(text: string): ArchiveError {
  try {
    parseFeedPage(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).code).toBe('BAD_PAGE');
    return error as ArchiveError;
  }
  throw new Error(`${text} was accepted`);
}

describe('parseFeedPage', () => {
  it('reads the specification example page: its events as one-line raw text, the cursor and the count', () => {
    const page = parseFeedPage(SPEC_PAGE);
    expect(page.nextCursor).toBe(SPEC_CURSOR);
    expect(page.totalEventCount).toBe(2);
    expect(page.events.map((e) => e.event.id)).toEqual(['5915682011263205071_1521042929000', '5915682011263205071_1521042929000']);
    expect(page.events[0]?.raw).toBe(
      '{"startTime":1521042929000,"endTime":1521542929000,"entityId":"HOST-0000000000000007","entityName":"Example Host","severityLevel":"PERFORMANCE","impactLevel":"INFRASTRUCTURE","eventType":"SLOW_DISK","eventStatus":"OPEN","tags":[{"context":"CONTEXTLESS","key":"exampleTag"}],"id":"5915682011263205071_1521042929000","source":"builtin"}',
    );
  });

  it('keeps a 64-bit eventId digit for digit in the raw text it archives', () => {
    const page = parseFeedPage(`{${META},"events":[{"eventId":-6388042533023614561,"startTime":1654148872269}]}`);
    expect(page.events[0]?.raw).toBe('{"eventId":-6388042533023614561,"startTime":1654148872269}');
    expect(page.events[0]?.event.id).toBe('-6388042533023614561_1654148872269');
  });

  it('reads the last page: no cursor whether it is absent, null or empty, and no events member at all', () => {
    for (const cursor of ['', ',"nextCursor":null', ',"nextCursor":""']) {
      expect(parseFeedPage(`{${META},"events":[]${cursor}}`)).toEqual({ events: [], nextCursor: undefined, totalEventCount: 2 });
    }
    expect(parseFeedPage(`{${META}}`)).toEqual({ events: [], nextCursor: undefined, totalEventCount: 2 });
    expect(parseFeedPage(`{${META},"events":null}`).events).toEqual([]);
  });

  it('says malformed JSON is malformed, keeping the parser error as cause', () => {
    const error = badPage('{"events":[');
    expect(error.message).toMatch(/^the feed answered malformed JSON \(.+\)$/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it.each(['[]', 'null', '"page"', '42'])('refuses %s: a page is an object', (text) => {
    const error = badPage(text);
    expect(error.message).toBe('the feed answered malformed JSON (expected an object at offset 0)');
    expect(error.cause).toBeInstanceOf(JsonScanError);
  });

  it('refuses paging members of the wrong type, naming the problem', () => {
    expect(badPage(`{${META},"events":[],"nextCursor":5}`).message).toBe('the feed answered an unexpected page: Invalid input: expected string, received number');
    expect(badPage('{"totalEventCount":"2","from":1,"to":2,"events":[]}').message).toBe('the feed answered an unexpected page: Invalid input: expected number, received string');
  });

  it('refuses events that are not an array', () => {
    for (const events of ['{}', '"x"', '7']) expect(badPage(`{${META},"events":${events}}`).message).toBe('the feed answered an unexpected page: events is not an array');
  });

  it('names the event a page cannot archive, keeping its error as cause', () => {
    const error = badPage(`{${META},"events":[{"id":"1_1","startTime":1},{"id":"2_2"}]}`);
    expect(error.message).toBe('event 1 of the page: startTime is missing or not a UTC millisecond time');
    expect(error.cause).toBeInstanceOf(ArchiveError);
    expect((error.cause as ArchiveError).code).toBe('BAD_EVENT');
  });
});

describe('window and cursor queries', () => {
  it('ask for a window with its filters, leaving out empty ones', () => {
    expect(windowParams({ from: 1521042929000, to: 1521542929000 }).toString()).toBe('from=1521042929000&to=1521542929000');
    expect(windowParams({ from: 1, to: 2, eventType: '', entityId: '' }).toString()).toBe('from=1&to=2');
    expect(windowParams({ from: 1, to: 2, eventType: 'SLOW_DISK', entityId: 'HOST-0000000000000007' }).toString()).toBe('from=1&to=2&eventType=SLOW_DISK&entityId=HOST-0000000000000007');
  });

  it('send the real service cursor back with exactly the bytes it was handed out with', () => {
    expect(cursorParams(SPEC_CURSOR).toString()).toBe(`cursor=${SPEC_CURSOR}`);
  });

  it('encode a cursor that was not percent-encoded, and keep one that only looks encoded as it is', () => {
    expect(cursorParams('AgE+Ab/c==').toString()).toBe('cursor=AgE%2BAb%2Fc%3D%3D');
    expect(cursorParams('Ag%E0%A4%A').toString()).toBe('cursor=Ag%25E0%25A4%25A');
  });
});

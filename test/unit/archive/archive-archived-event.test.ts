import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import { archivedEventFromFeed, dayStart, eventViewOf, readEventView, SCANNED_EVENT, utcDay, versionKey } from '../../../src/archive/archived-event.js';
import { scanJsonPage } from '../../../src/lib/json-page-scan.js';
import { CORPUS_DIR } from '../../helpers/corpus.js';

/** The specification's EventQueryResult example, as published (pretty-printed, two SLOW_DISK events). */
const QUERY_RESULT_TEXT = readFileSync(join(CORPUS_DIR, 'events/dt-openapi-env-v1-1.254__EventQueryResult-example.json'), 'utf8');
const SPEC_EVENT = (JSON.parse(QUERY_RESULT_TEXT) as { events: Record<string, unknown>[] }).events[0] as Record<string, unknown>;

function badEvent(raw: string): ArchiveError {
  try {
    readEventView(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return error as ArchiveError;
  }
  throw new Error(`${raw} was accepted`);
}

describe('readEventView', () => {
  it('reads the fields the archive needs from the specification example event', () => {
    expect(readEventView(JSON.stringify(SPEC_EVENT))).toEqual({
      id: '5915682011263205071_1521042929000',
      eventId: '5915682011263205071',
      startTime: 1521042929000,
      endTime: 1521542929000,
      eventStatus: 'OPEN',
      eventType: 'SLOW_DISK',
      entityId: 'HOST-0000000000000007',
      entityName: 'Example Host',
    });
  });

  it('takes a negative event id from `id` digit for digit (real push answer: -5988376401319068441)', () => {
    const view = readEventView('{"id":"-5988376401319068441_1628095127627","startTime":1628095127627,"eventStatus":"CLOSED"}');
    expect(view.eventId).toBe('-5988376401319068441');
    expect(view.id).toBe('-5988376401319068441_1628095127627');
  });

  it('without `id`, takes the raw `eventId` digits (beyond Number precision) and builds the documented id', () => {
    const view = readEventView('{"eventId":-4314211936928920170,"startTime":1654148872269}');
    expect(view.eventId).toBe('-4314211936928920170');
    expect(view.id).toBe('-4314211936928920170_1654148872269');
  });

  it('keeps an `id` of another shape as the identity and looks the digits up in the raw `eventId`', () => {
    expect(readEventView('{"id":"custom-7","eventId":7892432332072369170,"startTime":1654148872269}')).toMatchObject({
      id: 'custom-7',
      eventId: '7892432332072369170',
    });
    expect(readEventView('{"id":"custom-7","startTime":1654148872269}')).toMatchObject({ id: 'custom-7', eventId: undefined });
  });

  it('takes an `id` that is not a string for no identity: the eventId digits make one', () => {
    expect(readEventView('{"id":5,"eventId":7892432332072369170,"startTime":1654148872269}')).toMatchObject({
      id: '7892432332072369170_1654148872269',
      eventId: '7892432332072369170',
    });
  });

  it('does not take digits from an `id` that only contains the documented shape', () => {
    expect(readEventView('{"id":"x12_34","startTime":1}').eventId).toBeUndefined();
    expect(readEventView('{"id":"12_34x","startTime":1}').eventId).toBeUndefined();
    expect(readEventView('{"id":"12_","startTime":1}').eventId).toBeUndefined();
  });

  it('leaves out optional members that are absent or not of their type', () => {
    const view = readEventView('{"id":"1_5","startTime":5,"endTime":"later","eventStatus":1,"eventType":null,"entityId":true,"entityName":[]}');
    expect(view).toEqual({
      id: '1_5',
      eventId: '1',
      startTime: 5,
      endTime: undefined,
      eventStatus: undefined,
      eventType: undefined,
      entityId: undefined,
      entityName: undefined,
    });
  });

  it('accepts start times from the epoch up to the last millisecond of year 9999', () => {
    expect(readEventView('{"id":"1_0","startTime":0}').startTime).toBe(0);
    expect(readEventView('{"id":"1_253402300799999","startTime":253402300799999}').startTime).toBe(253402300799999);
  });

  it.each([
    ['{"id":"1_1","startTime":253402300800000}', 'year 10000'],
    ['{"id":"1_1","startTime":-1}', 'before the epoch'],
    ['{"id":"1_1","startTime":1.5}', 'a fraction'],
    ['{"id":"1_1","startTime":"1521042929000"}', 'a string'],
    ['{"id":"1_1"}', 'missing'],
    ['{"id":"1_1","startTime":9007199254740992}', 'beyond safe integers'],
  ])('rejects a startTime that is %s (%s) as BAD_EVENT', (raw) => {
    const error = badEvent(raw);
    expect(error.code).toBe('BAD_EVENT');
    expect(error.message).toBe('startTime is missing or not a UTC millisecond time');
  });

  it.each(['[]', 'null', '"event"', '42'])('rejects %s: not a JSON object', (raw) => {
    const error = badEvent(raw);
    expect(error.code).toBe('BAD_EVENT');
    expect(error.message).toBe('not a JSON object');
  });

  it('rejects text that is not JSON, keeping the parser error as cause', () => {
    const error = badEvent('{"id":');
    expect(error.code).toBe('BAD_EVENT');
    expect(error.message).toMatch(/^not JSON: /);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('rejects an event with neither id nor eventId', () => {
    const error = badEvent('{"startTime":1521042929000,"eventType":"SLOW_DISK"}');
    expect(error.code).toBe('BAD_EVENT');
    expect(error.message).toBe('the event has neither id nor eventId');
  });

  it('eventViewOf reads an already parsed value without parsing the text again', () => {
    expect(eventViewOf({ id: '3_4', startTime: 4 }, 'not json at all').id).toBe('3_4');
  });
});

/** What a page scan takes from `rawItem` as the one event of a page. */
function scannedValues(rawItem: string): unknown[] | undefined {
  const page = scanJsonPage(`{"events":[${rawItem}]}`, { members: [], items: 'events', itemMembers: SCANNED_EVENT.members, itemTexts: SCANNED_EVENT.texts });
  return page.items?.[0]?.values;
}

describe('archivedEventFromFeed', () => {
  it('keeps the feed bytes of an event, on one line, with whitespace inside strings untouched', () => {
    const rawItem = '{\n  "id": "5915682011263205071_1521042929000",\n  "startTime": 1521042929000,\n  "entityName": "Example  Host"\n}';
    const archived = archivedEventFromFeed(rawItem, scannedValues(rawItem));
    expect(archived.raw).toBe('{"id":"5915682011263205071_1521042929000","startTime":1521042929000,"entityName":"Example  Host"}');
    expect(archived.event.entityName).toBe('Example  Host');
  });

  it('reads the raw eventId from the compacted line, not from the rounded parsed number', () => {
    const rawItem = '{\n "eventId": 8663164135574257870,\n "startTime": 1628095127627\n}';
    const archived = archivedEventFromFeed(rawItem, scannedValues(rawItem));
    expect(archived.event.eventId).toBe('8663164135574257870');
    expect(archived.event.id).toBe('8663164135574257870_1628095127627');
  });

  it('takes the eventId text of a one-line event as the scan read it, and the view equals what reading the line back gives', () => {
    const rawItem = '{"eventId": -4314211936928920170, "startTime": 1654148872269, "endTime": 1654148872270, "eventStatus": "CLOSED", "eventType": "SLOW_DISK", "entityId": "HOST-1", "entityName": "h\\u00e9"}';
    const archived = archivedEventFromFeed(rawItem, scannedValues(rawItem));
    expect(archived.raw).toBe(rawItem);
    expect(archived.event).toEqual({
      id: '-4314211936928920170_1654148872269',
      eventId: '-4314211936928920170',
      startTime: 1654148872269,
      endTime: 1654148872270,
      eventStatus: 'CLOSED',
      eventType: 'SLOW_DISK',
      entityId: 'HOST-1',
      entityName: 'hé',
    });
    expect(archived.event).toEqual(readEventView(archived.raw));
  });

  it('refuses an item that is not an object', () => {
    expect(() => archivedEventFromFeed('[1]', scannedValues('[1]'))).toThrow('not a JSON object');
  });
});

describe('versionKey', () => {
  const base = readEventView(JSON.stringify(SPEC_EVENT));

  it('is id, status and end time', () => {
    expect(versionKey(base)).toBe('5915682011263205071_1521042929000\u0000OPEN\u00001521542929000');
    expect(versionKey({ ...base, eventStatus: undefined, endTime: undefined })).toBe('5915682011263205071_1521042929000\u0000\u0000');
  });

  it('differs when the status or the end time changes, not when other members do', () => {
    expect(versionKey({ ...base, eventStatus: 'CLOSED' })).not.toBe(versionKey(base));
    expect(versionKey({ ...base, endTime: 1521542929001 })).not.toBe(versionKey(base));
    expect(versionKey({ ...base, entityName: 'renamed' })).toBe(versionKey(base));
  });
});

describe('utcDay and dayStart', () => {
  it('names the UTC day of an instant (the partition of the specification example event)', () => {
    expect(utcDay(1521042929000)).toBe('2018-03-14');
    expect(utcDay(1520985600000)).toBe('2018-03-14');
    expect(utcDay(1520985599999)).toBe('2018-03-13');
    expect(utcDay(0)).toBe('1970-01-01');
  });

  it('names thousands of different days correctly (the day-name cache never answers for the wrong day)', () => {
    const days = new Set<string>();
    for (let day = 0; day < 5000; day++) days.add(utcDay(1520985600000 + day * 86_400_000));
    expect(days.size).toBe(5000);
    expect(utcDay(1520985600000)).toBe('2018-03-14');
    expect(utcDay(1520985600000 + 4999 * 86_400_000)).toBe('2031-11-20');
  });

  it('gives the UTC midnight of a day name', () => {
    expect(dayStart('2018-03-14')).toBe(1520985600000);
    expect(dayStart('1970-01-01')).toBe(0);
  });

  it.each(['+002018-03-14', '2018-3-14', '18-03-14', '2018-03-14T00:00:00Z', 'x2018-03-14', '2018-03-14x', '2018-13-01', ''])('has no start for %j', (day) => {
    expect(dayStart(day)).toBeUndefined();
  });
});

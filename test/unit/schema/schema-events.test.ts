import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVENT_TIMEOUT_MINUTES,
  DEFAULT_EVENTS_WINDOW_MS,
  ENCODED_EVENT_ID,
  EVENT_ID_DIGITS,
  EVENT_TYPES,
  EVENTS_PAGE_SIZE,
  EventCreation,
  EventQueryResult,
  EventRestEntry,
  EventStoreResult,
  EventType,
  INFO_EVENT_MAX_AGE_MS,
  INFO_EVENT_TYPES,
  MAX_EVENT_TIMEOUT_MINUTES,
  MAX_EVENTS_TIMEFRAME_MS,
  PROBLEM_EVENT_MAX_AGE_MS,
  PROBLEM_EVENT_TYPES,
  PushEventType,
  RELATIVE_TIMES,
  TagInfo,
} from '../../../src/schema/events.js';
import { CORPUS_DIR, SHARED_DIR } from '../../helpers/corpus.js';
import { issuesOf } from '../../helpers/schema-issues.js';

const SPEC = readFileSync(join(SHARED_DIR, 'spec/api.md'), 'utf8');
const corpusEvent = (name: string): unknown => JSON.parse(readFileSync(join(CORPUS_DIR, 'events', name), 'utf8'));

/** The event types the specification's Events part lists. */
const SPEC_EVENT_TYPES = [...(/with `eventType` being one of the following values:\s+(.*)$/m.exec(SPEC)?.[1] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]);
/** The `relativeTime` values the specification allows. */
const SPEC_RELATIVE_TIMES = [...(/^\| relativeTime \|.*Allowed: (.*) \|$/m.exec(SPEC)?.[1] ?? '').matchAll(/`([0-9a-z]+)`/g)].map((m) => m[1]);

const QUERY_RESULT = corpusEvent('dt-openapi-env-v1-1.254__EventQueryResult-example.json') as { events: Record<string, unknown>[] };
const SPEC_EVENT = QUERY_RESULT.events[0] as Record<string, unknown>;
const CREATION = corpusEvent('dt-openapi-env-v1-1.254__EventCreation-example.json') as Record<string, unknown>;


describe('event vocabulary', () => {
  it('filters by exactly the event types the specification lists', () => {
    expect(SPEC_EVENT_TYPES).toHaveLength(96);
    expect(EVENT_TYPES).toEqual(SPEC_EVENT_TYPES);
    expect(EventType.options).toEqual(SPEC_EVENT_TYPES);
  });

  it('means by each relativeTime value the window its name says', () => {
    expect(Object.keys(RELATIVE_TIMES).sort()).toEqual([...SPEC_RELATIVE_TIMES].sort());
    expect(RELATIVE_TIMES).toEqual({
      min: 60_000,
      '5mins': 300_000,
      '10mins': 600_000,
      '15mins': 900_000,
      '30mins': 1_800_000,
      hour: 3_600_000,
      '2hours': 7_200_000,
      '6hours': 21_600_000,
      day: 86_400_000,
      '3days': 259_200_000,
      week: 604_800_000,
      month: 2_592_000_000,
    });
  });

  it('has the limits of the specification and of the push-event documentation', () => {
    expect(EVENTS_PAGE_SIZE).toBe(150);
    expect(DEFAULT_EVENTS_WINDOW_MS).toBe(2_592_000_000);
    expect(MAX_EVENTS_TIMEFRAME_MS).toBe(63_072_000_000);
    expect(DEFAULT_EVENT_TIMEOUT_MINUTES).toBe(15);
    expect(MAX_EVENT_TIMEOUT_MINUTES).toBe(120);
    expect(INFO_EVENT_MAX_AGE_MS).toBe(2_592_000_000);
    expect(PROBLEM_EVENT_MAX_AGE_MS).toBe(3_600_000);
  });

  it('pushes the ten documented types: five that only inform and five that open a problem', () => {
    expect([...INFO_EVENT_TYPES].sort()).toEqual(['CUSTOM_ANNOTATION', 'CUSTOM_CONFIGURATION', 'CUSTOM_DEPLOYMENT', 'CUSTOM_INFO', 'MARKED_FOR_TERMINATION']);
    expect([...PROBLEM_EVENT_TYPES].sort()).toEqual(['AVAILABILITY_EVENT', 'CUSTOM_ALERT', 'ERROR_EVENT', 'PERFORMANCE_EVENT', 'RESOURCE_CONTENTION']);
    expect([...PushEventType.options].sort()).toEqual([...INFO_EVENT_TYPES, ...PROBLEM_EVENT_TYPES].sort());
  });
});

describe('event ids', () => {
  it.each(['8663164135574257870_1628095127627', '-5988376401319068441_1628095127627', '5915682011263205071_1521042929000', '0_0', '-9223372036854775808_1'])(
    'accept the encoded id %s',
    (id) => {
      expect(ENCODED_EVENT_ID.test(id)).toBe(true);
    },
  );

  it.each(['-0_1', '01_1', '1_01', '1_', '_1', '1_2_3', '1_12345678901234567', '12345678901234567890_1', ' 1_1', '1_1 ', 'a_1'])('refuse the encoded id %j', (id) => {
    expect(ENCODED_EVENT_ID.test(id)).toBe(false);
  });

  it('take canonical int64 digits only', () => {
    for (const digits of ['0', '7892432332072369170', '-4314211936928920170', '-1']) expect(EVENT_ID_DIGITS.test(digits)).toBe(true);
    for (const digits of ['-0', '00', '01', '+1', '', '-', '12345678901234567890', '1 ', ' 1']) expect(EVENT_ID_DIGITS.test(digits)).toBe(false);
  });
});

describe('EventRestEntry and EventQueryResult', () => {
  it('read the specification example page, keeping members it does not declare', () => {
    const page = EventQueryResult.parse(QUERY_RESULT);
    expect(page.events).toHaveLength(2);
    expect(page.events[0]).toMatchObject({ id: '5915682011263205071_1521042929000', eventStatus: 'OPEN', source: 'builtin' });
    expect(page.nextCursor).toBe('AgEBAAFn5IIFrgEAAAFofwDTrgAAAQAcMTY4N2RhYzViZTAtZmUxODEwOWQ5YTA1MTIyNQ%3D%3D');
    expect(issuesOf(EventQueryResult, { ...QUERY_RESULT, nextCursor: null, nextEventId: null, nextEventStartTms: null })).toEqual([]);
  });

  it('refuse an id that is not <eventId>_<startTime>, an unknown status and an empty type', () => {
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, id: '5915682011263205071' })).toEqual(['id: must be <eventId>_<startTime>']);
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, eventStatus: 'open' })).toHaveLength(1);
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, eventType: '' })).toHaveLength(1);
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, endTime: null, eventStatus: 'CLOSED', eventId: 5915682011263205071 })).toEqual([]);
  });

  it('take start and end times as non-negative integer milliseconds', () => {
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, startTime: -1 })).toHaveLength(1);
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, startTime: 1.5 })).toHaveLength(1);
    expect(issuesOf(EventRestEntry, { ...SPEC_EVENT, endTime: 2 ** 53 }).length).toBeGreaterThan(0);
  });

  it('take tags with a key of 1 to 2000 characters, and contexts the specification does not list', () => {
    expect(issuesOf(TagInfo, { context: 'CONTEXTLESS', key: 'exampleTag' })).toEqual([]);
    expect(issuesOf(TagInfo, { context: 'OPENSHIFT', key: 'k', value: 'v' })).toEqual([]);
    expect(issuesOf(TagInfo, { context: 'AWS', key: '' })).toHaveLength(1);
    expect(issuesOf(TagInfo, { context: 'AWS', key: 'k'.repeat(2000), value: 'v'.repeat(2000) })).toEqual([]);
    expect(issuesOf(TagInfo, { context: 'AWS', key: 'k'.repeat(2001) })).toHaveLength(1);
    expect(issuesOf(TagInfo, { context: 'AWS', key: 'k', value: 'v'.repeat(2001) })).toHaveLength(1);
  });
});

describe('EventCreation', () => {
  it('reads the specification example push', () => {
    expect(EventCreation.parse(CREATION)).toMatchObject({ eventType: 'CUSTOM_ANNOTATION', source: 'OpsControl', annotationType: 'defect' });
  });

  it('ignores members it does not know', () => {
    expect(EventCreation.parse({ ...CREATION, somethingNew: 1 })).not.toHaveProperty('somethingNew');
  });

  it('requires at least one entity id or tag rule to attach the event to', () => {
    for (const attachRules of [{}, { entityIds: [] }, { tagRule: [] }, { entityIds: [], tagRule: [] }]) {
      expect(issuesOf(EventCreation, { ...CREATION, attachRules })).toEqual(['attachRules: At least one entity ID or tag is required.']);
    }
    expect(issuesOf(EventCreation, { ...CREATION, attachRules: { entityIds: ['HOST-1'] } })).toEqual([]);
    expect(issuesOf(EventCreation, { ...CREATION, attachRules: { tagRule: (CREATION.attachRules as { tagRule: unknown }).tagRule } })).toEqual([]);
  });

  it('takes entity types in upper case in tag rules', () => {
    const rule = { meTypes: ['host'], tags: [{ context: 'CONTEXTLESS', key: 'customTag' }] };
    expect(issuesOf(EventCreation, { ...CREATION, attachRules: { tagRule: [rule] } })).toEqual(['attachRules.tagRule.0.meTypes.0: must be an entity type such as HOST']);
  });

  it('refuses a type that cannot be pushed, a missing source and a timeout outside 1 to 120 minutes', () => {
    expect(issuesOf(EventCreation, { ...CREATION, eventType: 'SLOW_DISK' })).toHaveLength(1);
    expect(issuesOf(EventCreation, { ...CREATION, source: undefined })).toHaveLength(1);
    expect(issuesOf(EventCreation, { ...CREATION, timeoutMinutes: 120 })).toEqual([]);
    expect(issuesOf(EventCreation, { ...CREATION, timeoutMinutes: 121 })).toHaveLength(1);
    expect(issuesOf(EventCreation, { ...CREATION, timeoutMinutes: 0 })).toHaveLength(1);
  });

  it('bounds texts at 10000 characters and takes custom properties of plain values', () => {
    expect(issuesOf(EventCreation, { ...CREATION, annotationDescription: 'x'.repeat(10_000) })).toEqual([]);
    expect(issuesOf(EventCreation, { ...CREATION, annotationDescription: 'x'.repeat(10_001) })).toHaveLength(1);
    expect(issuesOf(EventCreation, { ...CREATION, customProperties: { a: 'x', b: 1, c: true } })).toEqual([]);
    expect(issuesOf(EventCreation, { ...CREATION, customProperties: { a: { nested: 1 } } })).toHaveLength(1);
  });
});

describe('EventStoreResult', () => {
  it.each(['keptn-dtsvc__post-events-response-multiple.json', 'keptn-dtsvc__post-events-response-single.json', 'aws-modernization__post-events-response-extracted.json'])('reads the real push answer %s', (name) => {
    const result = EventStoreResult.parse(corpusEvent(name));
    expect(result.storedIds.length).toBe(result.storedEventIds.length);
    for (const id of result.storedIds) expect(ENCODED_EVENT_ID.test(id)).toBe(true);
  });
});

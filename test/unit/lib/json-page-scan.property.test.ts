import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScanError } from '../../../src/lib/json-split.js';
import { JsonSyntaxError, scanJsonPage, type PageShape } from '../../../src/lib/json-page-scan.js';
import { jsonModels, numbers, RawNumber, shuffledRecord, spelled, textUnits, texts, writeJson, type JsonModel } from '../../helpers/json-spelling.js';

/**
 * The scan against JSON.parse: it must accept exactly the texts JSON.parse accepts, and what it takes from a page must
 * be what JSON.parse gives (the item texts and the raw member texts parse to JSON.parse's values).
 */
const SHAPE: PageShape = { members: ['nextCursor', 'total', 'from'], items: 'events', itemMembers: ['id', 'startTime', 'status', 'tags'], itemTexts: ['eventId'] };
const ITEM_NAMES = [...SHAPE.itemMembers, ...SHAPE.itemTexts];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(value: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(value, name) ? value[name] : undefined;
}

/** Checks the scan of `text` against JSON.parse; returns whether JSON.parse accepted it as an object. */
function expectAgreement(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    expect(() => scanJsonPage(text, SHAPE), text).toThrow(JsonSyntaxError);
    return false;
  }
  if (!isObject(parsed)) {
    expect(() => scanJsonPage(text, SHAPE), text).toThrow(JsonScanError);
    return false;
  }
  const page = scanJsonPage(text, SHAPE);
  for (const name of SHAPE.members) expect(page.members[name], `${name} of ${text}`).toEqual(own(parsed, name));
  const events = own(parsed, 'events');
  if (!Array.isArray(events)) {
    expect(page.items, text).toBeUndefined();
    expect(page.members.events, text).toEqual(events);
    return true;
  }
  expect(page.members.events).toBe(page.items);
  expect(page.items?.length, text).toBe(events.length);
  let from = 0;
  for (const [index, item] of (page.items ?? []).entries()) {
    const event: unknown = events[index];
    // The item's own text, in order, with no whitespace around it.
    expect(JSON.parse(item.text), text).toEqual(event);
    expect(item.text.trim()).toBe(item.text);
    const at = text.indexOf(item.text, from);
    expect(at, text).toBeGreaterThanOrEqual(from);
    from = at + item.text.length;
    if (!isObject(event)) {
      expect(item.values, text).toBeUndefined();
      continue;
    }
    expect(item.values?.length).toBe(ITEM_NAMES.length);
    SHAPE.itemMembers.forEach((name, k) => expect(item.values?.[k], `${name} of ${item.text}`).toEqual(own(event, name)));
    SHAPE.itemTexts.forEach((name, k) => {
      const raw = item.values?.[SHAPE.itemMembers.length + k];
      if (own(event, name) === undefined) return expect(raw).toBeUndefined();
      expect(typeof raw).toBe('string');
      expect(item.text).toContain(raw);
      expect(JSON.parse(raw as string), `${name} of ${item.text}`).toEqual(own(event, name));
    });
  }
  return true;
}

const json = jsonModels([...ITEM_NAMES, ...SHAPE.members, 'events', 'ID', 'idx', 'i', 'other']);

/** An event as the feed writes one, with members of the wrong type and members the scan must not read. */
const events = shuffledRecord({
  eventId: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n }).map((id) => new RawNumber(String(id))), json),
  id: fc.oneof(texts, json),
  startTime: fc.oneof(fc.integer({ min: 0, max: 2 ** 47 }), json),
  status: fc.oneof(fc.constantFrom('OPEN', 'CLOSED'), json),
  tags: fc.oneof(fc.array(fc.record({ id: texts, key: texts }), { maxLength: 3 }), json),
  other: json,
});

const pages = shuffledRecord({
  events: fc.oneof({ weight: 6, arbitrary: fc.array(fc.oneof({ weight: 5, arbitrary: events }, json), { maxLength: 5 }) }, json),
  nextCursor: fc.oneof(texts, fc.constant(null), json),
  total: fc.oneof(fc.nat(), json),
  from: numbers,
  other: json,
});

/** One change to a text: a character put in, taken out or replaced, or the text cut short. */
const edits = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char: textUnits }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char: fc.oneof(textUnits, fc.constantFrom('1', '-', '+', '.', 'e', 't', 'n', 'u', '[', '}', ' ')) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);
type Edit = typeof edits extends fc.Arbitrary<infer T> ? T : never;

function edited(text: string, edit: Edit): string {
  const at = edit.at % (text.length + 1);
  if (edit.kind === 'insert') return text.slice(0, at) + edit.char + text.slice(at);
  if (edit.kind === 'replace') return text.slice(0, at) + edit.char + text.slice(at + 1);
  if (edit.kind === 'delete') return text.slice(0, at) + text.slice(at + 1);
  return text.slice(0, at);
}

describe('scanJsonPage agrees with JSON.parse', () => {
  it('on what fast-check writes as JSON (fc.json, and fc.jsonValue pretty-printed)', () => {
    fc.assert(fc.property(fc.oneof(fc.json(), fc.jsonValue().map((value) => JSON.stringify(value, null, 2))), (text) => void expectAgreement(text)), { numRuns: 500 });
  });

  it('on objects of any JSON, spelled every way JSON allows', () => {
    fc.assert(fc.property(spelled(fc.dictionary(fc.oneof(fc.constantFrom(...ITEM_NAMES, 'events'), texts), json, { maxKeys: 5 })), (text) => void expectAgreement(text)), { numRuns: 500 });
  });

  it('on event pages: escapes, unicode, numbers beyond Number precision, nesting, repeated names, members of the wrong type', () => {
    let read = 0;
    fc.assert(
      fc.property(spelled(pages), (text) => {
        expect(expectAgreement(text)).toBe(true);
        read += 1;
      }),
      { numRuns: 700 },
    );
    expect(read).toBe(700);
  });

  it('takes a 64-bit eventId digit for digit, however the event is spelled', () => {
    const withId = fc.tuple(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }), events).map(([id, event]) => ({
      digits: String(id),
      page: { events: [{ ...(event as Record<string, JsonModel>), eventId: new RawNumber(String(id)) }] },
    }));
    fc.assert(
      fc.property(withId, fc.infiniteStream(fc.nat(1000)), ({ digits, page }, stream) => {
        const choices = stream[Symbol.iterator]();
        const text = writeJson(page, (options) => (choices.next().value as number) % options);
        expect(scanJsonPage(text, SHAPE).items?.[0]?.values?.[ITEM_NAMES.indexOf('eventId')]).toBe(digits);
        expectAgreement(text);
      }),
      { numRuns: 300 },
    );
  });

  it('on pages with one or a few characters put in, taken out or replaced, or cut short', () => {
    let refused = 0;
    fc.assert(
      fc.property(spelled(pages), fc.array(edits, { minLength: 1, maxLength: 3 }), (text, changes) => {
        if (!expectAgreement(changes.reduce(edited, text))) refused += 1;
      }),
      { numRuns: 1500 },
    );
    // Most edits break the text; the ones that do are what this property is about.
    expect(refused).toBeGreaterThan(1000);
  });
});

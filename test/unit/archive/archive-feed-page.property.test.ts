import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import { eventViewOf, readEventView } from '../../../src/archive/archived-event.js';
import { parseFeedPage, type FeedPage } from '../../../src/archive/feed-page-parse.js';
import { compactJson, scanObject } from '../../../src/lib/json-split.js';
import { EventQueryResult } from '../../../src/schema/events.js';
import { jsonModels, RawNumber, shuffledRecord, spelled, texts, type JsonModel } from '../../helpers/json-spelling.js';

/**
 * The two passes parseFeedPage made before its one scan: JSON.parse of the whole page for the fields, scanObject for
 * each event's raw text. Its answers are what parseFeedPage must still give.
 */
function twoPassPage(text: string): FeedPage {
  let parsed: unknown;
  let items: string[];
  try {
    parsed = JSON.parse(text);
    items = scanObject(text, 'events').items ?? [];
  } catch (error) {
    throw new ArchiveError('BAD_PAGE', `the feed answered malformed JSON (${(error as Error).message})`, { cause: error });
  }
  const fields = parsed as Record<string, unknown>;
  const PageMeta = EventQueryResult.pick({ nextCursor: true, totalEventCount: true, from: true, to: true });
  const page = PageMeta.safeParse({ nextCursor: fields.nextCursor, totalEventCount: fields.totalEventCount, from: fields.from, to: fields.to });
  const parsedEvents = fields.events ?? [];
  if (!page.success || !Array.isArray(parsedEvents)) {
    throw new ArchiveError('BAD_PAGE', `the feed answered an unexpected page: ${page.error?.issues[0]?.message ?? 'events is not an array'}`);
  }
  const events = items.map((item, index) => {
    try {
      const raw = compactJson(item);
      return { raw, event: eventViewOf(parsedEvents[index], raw) };
    } catch (error) {
      throw new ArchiveError('BAD_PAGE', `event ${index} of the page: ${(error as Error).message}`, { cause: error });
    }
  });
  return { events, nextCursor: page.data.nextCursor || undefined, totalEventCount: page.data.totalEventCount };
}

type Outcome = { page: FeedPage } | { code: string; message: string };

function outcome(read: (text: string) => FeedPage, text: string): Outcome {
  try {
    return { page: read(text) };
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    const { code, message } = error as ArchiveError;
    // The parsers' own words for malformed JSON differ; what the page is refused for does not.
    return { code, message: message.replace(/^(the feed answered malformed JSON) \(.*\)$/s, '$1') };
  }
}

const json = jsonModels(['id', 'eventId', 'startTime', 'endTime', 'eventStatus', 'events', 'nextCursor']);
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n });
const startTimes = fc.oneof(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.constantFrom(-1, 1.5, 253_402_300_800_000, 2 ** 53), json);

const events = fc.tuple(int64, fc.integer({ min: 0, max: 2 ** 45 })).chain(([id, start]) =>
  shuffledRecord({
    eventId: fc.oneof({ weight: 8, arbitrary: fc.constant(new RawNumber(String(id))) }, json),
    id: fc.oneof({ weight: 8, arbitrary: fc.constant(`${id}_${start}`) }, texts, json),
    startTime: fc.oneof({ weight: 8, arbitrary: fc.constant(start) }, startTimes),
    endTime: fc.oneof(fc.nat(), json),
    eventStatus: fc.oneof(fc.constantFrom('OPEN', 'CLOSED'), json),
    eventType: fc.oneof(texts, json),
    entityId: fc.oneof(texts, json),
    entityName: fc.oneof(texts, json),
    tags: fc.array(fc.record({ context: fc.constant('CONTEXTLESS'), key: texts, value: texts }), { maxLength: 2 }),
  }),
);

const pages = shuffledRecord(
  {
    events: fc.oneof({ weight: 10, arbitrary: fc.array(fc.oneof({ weight: 20, arbitrary: events }, json), { maxLength: 4 }) }, json),
    totalEventCount: fc.oneof({ weight: 20, arbitrary: fc.nat() }, json),
    from: fc.oneof({ weight: 20, arbitrary: fc.nat() }, json),
    to: fc.oneof({ weight: 20, arbitrary: fc.nat() }, json),
    nextCursor: fc.oneof({ weight: 10, arbitrary: texts }, fc.constantFrom(null, ''), json),
    nextEventId: int64.map((id) => new RawNumber(String(id)) as JsonModel),
  },
  ['totalEventCount', 'from', 'to'],
);

describe('parseFeedPage in one scan answers as the two passes it replaced', () => {
  it('on pages of events, one-line and spread over lines, with members of the wrong type', () => {
    let read = 0;
    fc.assert(
      fc.property(spelled(pages), (text) => {
        const answer = outcome(parseFeedPage, text);
        expect(answer, text).toEqual(outcome(twoPassPage, text));
        if (!('page' in answer)) return;
        read += 1;
        // What the archive holds is read back the same way.
        for (const { raw, event } of answer.page.events) expect(readEventView(raw)).toEqual(event);
      }),
      { numRuns: 600 },
    );
    expect(read).toBeGreaterThan(200);
  });

  it('on pages with a character put in, taken out or replaced, or cut short', () => {
    const edits = fc.tuple(fc.nat(), fc.constantFrom('', 'x', '"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', '.', 'e', ' ', '\n', '\u0001'), fc.constantFrom(0, 1));
    fc.assert(
      fc.property(spelled(pages), edits, (text, [at, char, removed]) => {
        const where = at % (text.length + 1);
        const changed = text.slice(0, where) + char + text.slice(where + removed);
        expect(outcome(parseFeedPage, changed), changed).toEqual(outcome(twoPassPage, changed));
      }),
      { numRuns: 600 },
    );
  });
});

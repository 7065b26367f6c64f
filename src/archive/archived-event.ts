import { compactJson, scanObjectMembers } from '../lib/json-split.js';
import { ArchiveError } from './archive-error.js';

/**
 * The fields of an event the archive reads. Everything else stays in the raw line. `eventId` is the decimal text
 * as the feed wrote it (64-bit, often beyond Number precision), taken from `id` (`<eventId>_<startTime>`) or from
 * the raw `eventId` member, never from a parsed number.
 */
export interface ArchivedEventView {
  readonly id: string;
  readonly eventId: string | undefined;
  readonly startTime: number;
  readonly endTime: number | undefined;
  readonly eventStatus: string | undefined;
  readonly eventType: string | undefined;
  readonly entityId: string | undefined;
  readonly entityName: string | undefined;
}

/** An event as the archive holds it: one JSONL line and the fields read from it. */
export interface ArchivedEvent {
  readonly raw: string;
  readonly event: ArchivedEventView;
}

const DAY_MS = 86_400_000;
/** 10000-01-01: partition names are four-digit years. */
const MAX_TIME = 253_402_300_800_000;

/**
 * Reads the view of one event from its raw JSON text. Throws ArchiveError `BAD_EVENT` when the text is not an
 * object or lacks a numeric `startTime` (the partition key) or any identity.
 */
export function readEventView(raw: string): ArchivedEventView {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ArchiveError('BAD_EVENT', `not JSON: ${(error as Error).message}`, { cause: error });
  }
  return eventViewOf(parsed, raw);
}

/**
 * What a page scan takes from each event, in this order: the members the archive reads, decoded, then `eventId` as
 * its text, since its digits must never pass through a (rounding) number.
 */
export const SCANNED_EVENT = {
  members: ['id', 'startTime', 'endTime', 'eventStatus', 'eventType', 'entityId', 'entityName'],
  texts: ['eventId'],
} as const;

/**
 * The view of an event already parsed from `raw` (a parsed number never supplies `eventId`: it may be rounded).
 * `eventIdText` is the text of its eventId member in `raw` when the caller has it; otherwise it is looked up there.
 */
export function eventViewOf(parsed: unknown, raw: string, eventIdText?: string): ArchivedEventView {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ArchiveError('BAD_EVENT', 'not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const startTime = fields.startTime;
  if (typeof startTime !== 'number' || !Number.isSafeInteger(startTime) || startTime < 0 || startTime >= MAX_TIME) {
    throw new ArchiveError('BAD_EVENT', 'startTime is missing or not a UTC millisecond time');
  }
  const id = typeof fields.id === 'string' ? fields.id : undefined;
  // The digits come from `id` when it has the documented shape; only otherwise is the raw member looked up.
  const eventId = (id === undefined ? undefined : eventIdFromId(id)) ?? (fields.eventId === undefined ? undefined : (eventIdText ?? scanObjectMembers(raw).get('eventId')));
  if (id === undefined && eventId === undefined) throw new ArchiveError('BAD_EVENT', 'the event has neither id nor eventId');
  return {
    id: id ?? `${eventId}_${startTime}`,
    eventId,
    startTime,
    endTime: typeof fields.endTime === 'number' ? fields.endTime : undefined,
    eventStatus: optionalString(fields.eventStatus),
    eventType: optionalString(fields.eventType),
    entityId: optionalString(fields.entityId),
    entityName: optionalString(fields.entityName),
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function eventIdFromId(id: string): string | undefined {
  const match = /^(-?\d+)_\d+$/.exec(id);
  return match?.[1];
}

/**
 * An event from the feed, ready to archive: one line of text (the feed's bytes, on one line) and its view. `values`:
 * what a page scan took from the item, in SCANNED_EVENT's order; undefined when the item is not an object.
 */
export function archivedEventFromFeed(rawItem: string, values: readonly unknown[] | undefined): ArchivedEvent {
  const raw = compactJson(rawItem);
  if (values === undefined) return { raw, event: eventViewOf(undefined, raw) };
  const [id, startTime, endTime, eventStatus, eventType, entityId, entityName, eventId] = values;
  // The eventId is the text the line holds, as the archive reads it back: the scan's, unless compacting changed it.
  // Stryker disable next-line ConditionalExpression: equivalent when false, speed only (eventViewOf then finds the text in the line).
  const eventIdText = raw === rawItem ? (eventId as string | undefined) : undefined;
  return { raw, event: eventViewOf({ id, startTime, endTime, eventStatus, eventType, entityId, entityName, eventId }, raw, eventIdText) };
}

/**
 * What makes a version of an event: the same `id`, `eventStatus` and `endTime` is the same version, written once
 * ever; a change in status or end time is a new version and a new line.
 */
export function versionKey(event: ArchivedEventView): string {
  return `${event.id}\u0000${event.eventStatus ?? ''}\u0000${event.endTime ?? ''}`;
}

/** `YYYY-MM-DD` of a UTC millisecond instant: the partition an event with that start time belongs to. */
export function utcDay(ms: number): string {
  const dayNumber = Math.floor(ms / DAY_MS);
  let day = dayNames.get(dayNumber);
  // Stryker disable next-line ConditionalExpression: `true` is equivalent (a speed-only cache: formatting again gives the same name).
  if (day === undefined) {
    // Formatting a date costs more than the rest of routing an event; a page rarely spans more than two days.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: speed-only bound on the cache's memory; any bound gives the same names.
    if (dayNames.size > 4096) dayNames.clear();
    day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    dayNames.set(dayNumber, day);
  }
  return day;
}
const dayNames = new Map<number, string>();

/** UTC midnight of a `YYYY-MM-DD` day, or undefined when the text is not such a day. */
export function dayStart(day: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

export { DAY_MS };

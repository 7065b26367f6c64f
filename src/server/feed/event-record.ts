import { formatIssuePath } from '../../schema/error-envelope.js';
import { EventRestEntry } from '../../schema/events.js';
import { parseEncodedEventId } from './int64.js';
import type { EventFields } from './event-fields.js';
import { scanCanonicalPrefix } from './line-scan.js';

/** An event ready to store: its canonical one-line text and its index fields. */
export interface EncodedEvent {
  /** `<eventId>_<startTime>`, canonical. */
  readonly id: string;
  readonly text: string;
  readonly fields: EventFields;
}

export type EncodeResult = { ok: true; event: EncodedEvent } | { ok: false; problems: string[] };

const PREFIX_KEYS = new Set(['id', 'eventId', 'startTime', 'endTime', 'eventType', 'entityId']);

/**
 * Validates an event object (an EventRestEntry) and writes its canonical text. The text starts with the index
 * fields in a fixed order — `{"id":…,"eventId":<digits>,"startTime":…[,"endTime":…],"eventType":…[,"entityId":…]`
 * — so a restart can index a line without a full JSON parse; every other member follows in the caller's order.
 * `eventId` is written from the digits of `id`, never from a JS number.
 */
export function encodeEvent(event: Readonly<Record<string, unknown>>): EncodeResult {
  const parsed = EventRestEntry.safeParse(event);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${formatIssuePath(i.path) || 'event'}: ${i.message}`) };
  }
  const entry = parsed.data;
  const id = parseEncodedEventId(entry.id);
  if (!id) return { ok: false, problems: ['id: the event id is not a signed 64-bit integer'] };
  if (id.startTime !== entry.startTime) {
    return { ok: false, problems: [`id: ends in _${id.startTime} but startTime is ${entry.startTime}`] };
  }
  const endTime = entry.endTime ?? undefined;
  if (endTime !== undefined && endTime < entry.startTime) {
    return { ok: false, problems: [`endTime: ${endTime} is before startTime ${entry.startTime}`] };
  }
  const fields: EventFields = {
    hi: id.words.hi,
    lo: id.words.lo,
    startTime: entry.startTime,
    endTime,
    eventType: entry.eventType,
    entityId: entry.entityId,
  };
  const text = canonicalText(id.eventId, fields, event);
  return { ok: true, event: { id: `${id.eventId}_${fields.startTime}`, text, fields } };
}

function canonicalText(eventId: string, fields: EventFields, event: Readonly<Record<string, unknown>>): string {
  let text = `{"id":"${eventId}_${fields.startTime}","eventId":${eventId},"startTime":${fields.startTime}`;
  if (fields.endTime !== undefined) text += `,"endTime":${fields.endTime}`;
  text += `,"eventType":${JSON.stringify(fields.eventType)}`;
  if (fields.entityId !== undefined) text += `,"entityId":${JSON.stringify(fields.entityId)}`;
  // fromEntries defines own properties, so a member named `__proto__` stays data and is written back as such.
  const rest = Object.fromEntries(Object.entries(event).filter(([key]) => !PREFIX_KEYS.has(key)));
  const restText = JSON.stringify(rest);
  return restText === '{}' ? `${text}}` : `${text},${restText.slice(1)}`;
}

/**
 * Index fields of one stored line (bytes `start`..`end` of `buf`, without the newline). Lines this module wrote
 * take the fast path over their fixed prefix; anything else is parsed in full. Undefined when the line is not an
 * event.
 */
export function fieldsOfLine(buf: Buffer, start: number, end: number): EventFields | undefined {
  // A line that does not end its object is damaged: only the slow path may still make sense of it.
  const closed = end > start && buf[end - 1] === 0x7d;
  return (closed ? scanCanonicalPrefix(buf, start, end) : undefined) ?? fieldsOfParsedLine(buf.toString('utf8', start, end));
}

function fieldsOfParsedLine(line: string): EventFields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const result = encodeEvent(value as Record<string, unknown>);
  return result.ok ? result.event.fields : undefined;
}

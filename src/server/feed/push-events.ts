import { createHash, randomBytes } from 'node:crypto';
import type { ConstraintViolation } from '../../schema/error-envelope.js';
import {
  DEFAULT_EVENT_TIMEOUT_MINUTES,
  EventCreation,
  INFO_EVENT_MAX_AGE_MS,
  INFO_EVENT_TYPES,
  PROBLEM_EVENT_MAX_AGE_MS,
} from '../../schema/events.js';
import { HttpError } from '../http/http-error.js';
import { describeEntity, matchTagRules, type KnownEntity } from './entity-resolver.js';
import { encodeEvent, type EncodedEvent } from './event-record.js';
import type { EventStore } from './event-store.js';
import { newEventId } from './int64.js';
import type { OpenProblem } from './open-problems.js';
import { closeDueProblems } from './problem-expiry.js';
import { pushedEvent } from './pushed-event.js';

export interface PushDeps {
  readonly store: EventStore;
  readonly now: number;
  readonly newEventId?: () => string;
  readonly newCorrelationId?: () => string;
}

const INFO_TYPES: ReadonlySet<string> = new Set(INFO_EVENT_TYPES);

/**
 * `POST /api/v1/events`, as the real push call behaves: one event per attached entity. Information-only types are
 * stored closed and answered with their ids. Problem-opening types are stored OPEN and answered with correlation
 * ids; they close `timeoutMinutes` after the last time the same payload was sent for the entity. Returns the
 * EventStoreResult JSON text, written by hand so the int64 ids keep every digit.
 */
export async function pushEvent(body: unknown, deps: PushDeps): Promise<string> {
  const parsed = EventCreation.safeParse(body);
  if (!parsed.success) throw HttpError.fromIssues(parsed.error.issues);
  const creation = parsed.data;
  const info = INFO_TYPES.has(creation.eventType);
  const start = creation.start ?? deps.now;
  checkTimes(creation, start, info, deps.now);
  await closeDueProblems(deps.store, deps.now);
  return deps.store.problems.exclusive(async () => {
    const entities = await resolveEntities(deps, creation);
    checkStoredSize(creation, entities, start);
    return info ? storeInfoEvents(deps, creation, entities, start) : storeProblemEvents(deps, creation, entities, start);
  });
}

/**
 * Most bytes one push may store: the event is copied to each entity it is attached to, and 2,000 entities of one
 * 141 kB push stored 230 MB and took the server to 1 GB (any DataExport token could send it). 8 MiB is thousands of
 * ordinary events.
 */
export const MAX_STORED_BYTES_PER_PUSH = 8 * 1024 * 1024;

/**
 * Refuses a push whose stored events would pass MAX_STORED_BYTES_PER_PUSH, measured on one event as it is stored (the
 * copies differ only in their entity's few fields): the attach rules are not stored, and text is counted in UTF-8.
 */
function checkStoredSize(creation: EventCreation, entities: readonly KnownEntity[], start: number): void {
  const [first] = entities;
  if (first === undefined) return;
  const stored = Buffer.byteLength(encoded(pushedEvent(creation, first, { eventId: '0', start, end: start })).text) * entities.length;
  if (stored <= MAX_STORED_BYTES_PER_PUSH) return;
  throw HttpError.constraints([{
    path: 'attachRules',
    message: `This event attached to ${entities.length} entities would store ${(stored / (1024 * 1024)).toFixed(1)} MiB; one push stores at most 8 MiB: attach fewer entities or send shorter texts.`,
    parameterLocation: 'PAYLOAD_BODY',
    location: null,
  }]);
}

function checkTimes(creation: EventCreation, start: number, info: boolean, now: number): void {
  const violations: ConstraintViolation[] = [];
  const fail = (path: string, message: string): void => {
    violations.push({ path, message, parameterLocation: 'PAYLOAD_BODY', location: null });
  };
  if (info && start < now - INFO_EVENT_MAX_AGE_MS) fail('start', 'Information-only events may start at most 30 days in the past.');
  if (!info && start < now - PROBLEM_EVENT_MAX_AGE_MS) fail('start', 'Problem-opening events may start at most 60 minutes in the past.');
  if (info && creation.end !== undefined && creation.end < start) fail('end', `end (${creation.end}) is before start (${start}).`);
  if (violations.length > 0) throw HttpError.constraints(violations);
}

async function resolveEntities(deps: PushDeps, creation: EventCreation): Promise<KnownEntity[]> {
  const byId = new Map<string, KnownEntity>();
  for (const entityId of creation.attachRules.entityIds ?? []) {
    if (!byId.has(entityId)) byId.set(entityId, await describeEntity(deps.store, entityId));
  }
  if (creation.attachRules.tagRule) {
    for (const entity of await matchTagRules(deps.store, creation.attachRules.tagRule, deps.now)) {
      if (!byId.has(entity.entityId)) byId.set(entity.entityId, entity);
    }
  }
  if (byId.size === 0) {
    throw HttpError.constraints([{
      path: 'attachRules.tagRule',
      message: 'No entity seen in the last 24 hours matches the tag rules: attach the event by entityIds instead.',
      parameterLocation: 'PAYLOAD_BODY',
      location: null,
    }]);
  }
  return [...byId.values()];
}

async function storeInfoEvents(deps: PushDeps, creation: EventCreation, entities: KnownEntity[], start: number): Promise<string> {
  const end = creation.end ?? Math.max(deps.now, start);
  const makeId = deps.newEventId ?? newEventId;
  const events = entities.map((entity) => encoded(pushedEvent(creation, entity, { eventId: makeId(), start, end })));
  await deps.store.put(events);
  const ids = events.map((event) => event.id);
  return resultText(ids, []);
}

async function storeProblemEvents(deps: PushDeps, creation: EventCreation, entities: KnownEntity[], start: number): Promise<string> {
  const deadline = deps.now + (creation.timeoutMinutes ?? DEFAULT_EVENT_TIMEOUT_MINUTES) * 60_000;
  const makeId = deps.newEventId ?? newEventId;
  const makeCorrelation = deps.newCorrelationId ?? (() => randomBytes(8).toString('hex'));
  const entries: OpenProblem[] = [];
  const fresh: EncodedEvent[] = [];
  for (const entity of entities) {
    const key = problemKey(creation, entity.entityId);
    const open = deps.store.problems.find(key);
    if (open) {
      entries.push({ ...open, deadline });
      continue;
    }
    const correlationId = makeCorrelation();
    const event = encoded(pushedEvent(creation, entity, { eventId: makeId(), start, end: undefined, correlationId }));
    fresh.push(event);
    entries.push({ key, id: event.id, correlationId, deadline });
  }
  // The timeouts are durable before the events: a crash in between leaves an entry without an event (dropped when
  // due), never an open event that would stay open forever.
  await deps.store.problems.update(entries);
  await deps.store.put(fresh);
  return resultText([], entries.map((entry) => entry.correlationId));
}

/** "The same payload" for one entity: everything but the times, which a refresh naturally changes. */
function problemKey(creation: EventCreation, entityId: string): string {
  const { start: _start, end: _end, timeoutMinutes: _timeout, attachRules: _rules, ...payload } = creation;
  return createHash('sha256').update(JSON.stringify([entityId, payload])).digest('base64url');
}

function encoded(event: Record<string, unknown>): EncodedEvent {
  const result = encodeEvent(event);
  if (!result.ok) throw new Error(`a pushed event failed its own schema: ${result.problems.join('; ')}`);
  return result.event;
}

function resultText(ids: readonly string[], correlationIds: readonly string[]): string {
  const eventIds = ids.map((id) => id.slice(0, id.lastIndexOf('_')));
  return `{"storedEventIds":[${eventIds.join(',')}],"storedIds":${JSON.stringify(ids)},"storedCorrelationIds":${JSON.stringify(correlationIds)}}`;
}

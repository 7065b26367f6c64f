import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { flushDirtyPages } from '../lib/flush-dirty-pages.js';
import { createRng, type Rng } from '../lib/rng.js';

/** The event types the data set uses, most common first; the filtered figures ask for `FILTER_EVENT_TYPE`. */
const EVENT_TYPES = [
  'CPU_SATURATED', 'HIGH_LATENCY', 'ERROR_EVENT', 'PROCESS_RESTART', 'MEMORY_SATURATED', 'CUSTOM_DEPLOYMENT',
  'CUSTOM_INFO', 'SERVICE_RESPONSE_TIME_DEGRADED', 'FAILURE_RATE_INCREASED', 'LOW_DISK_SPACE', 'AVAILABILITY_EVENT',
  'SLOW_DISK', 'HOST_CONNECTION_LOST', 'SYNTHETIC_AVAILABILITY', 'CUSTOM_ANNOTATION', 'PROCESS_CRASHED',
  'HIGH_GC_ACTIVITY', 'UNEXPECTED_HIGH_LOAD', 'CUSTOM_CONFIGURATION', 'DATABASE_CONNECTION_FAILURE',
] as const;
export const FILTER_EVENT_TYPE = 'PROCESS_RESTART';

const SEVERITIES = ['AVAILABILITY', 'ERROR', 'PERFORMANCE', 'RESOURCE_CONTENTION', 'CUSTOM_ALERT'] as const;
const IMPACTS = ['INFRASTRUCTURE', 'SERVICE', 'APPLICATION'] as const;
/** What the figures used before the shape became a knob: 5 % open over 400 entities. */
export const DEFAULT_OPEN_SHARE = 0.05;
export const DEFAULT_ENTITY_COUNT = 400;

export interface EventSetOptions {
  count: number;
  seed: number;
  /** Newest event starts just before this instant; the set spans `spanMs` back from it. */
  anchorMs: number;
  spanMs: number;
  /** Share of events still OPEN (no end yet), 0–1: what a noisy week or a large estate raises. */
  openShare?: number;
  /** How many distinct entities the events are spread over. */
  entityCount?: number;
}

export interface EventSetInfo {
  count: number;
  fromMs: number;
  toMs: number;
  /** An entity the filtered figures ask for (a few tenths of a percent of all events). */
  filterEntityId: string;
  filterEventType: string;
}

function entityIdFor(index: number): string {
  const kind = index % 4 === 0 ? 'SERVICE' : 'HOST';
  return `${kind}-${createRng(index + 77).hex(16)}`;
}

/**
 * One EventRestEntry line as the feed and `events import` carry it. `eventId` is written digit for digit
 * from a bigint: JSON.stringify of a number would round it, and real ids are beyond 2^53.
 */
function eventLine(rng: Rng, startTime: number, shape: Required<Pick<EventSetOptions, 'openShare' | 'entityCount'>>): string {
  const eventId = rng.int64();
  const entity = rng.int(0, shape.entityCount - 1);
  const entityId = entityIdFor(entity);
  const open = rng.chance(shape.openShare);
  const eventType = rng.next() < 0.08 ? FILTER_EVENT_TYPE : rng.pick(EVENT_TYPES);
  const rest = {
    id: `${eventId}_${startTime}`,
    startTime,
    // An open event has no end yet (the feed omits it); JSON.stringify drops the undefined member.
    endTime: open ? undefined : startTime + rng.int(60_000, 1_800_000),
    entityId,
    entityName: `${entityId.startsWith('HOST') ? 'ip-10-0' : 'svc'}-${entity}`,
    severityLevel: rng.pick(SEVERITIES),
    impactLevel: rng.pick(IMPACTS),
    eventType,
    eventStatus: open ? 'OPEN' : 'CLOSED',
    tags: [{ context: 'CONTEXTLESS', key: 'env', value: rng.pick(['prod', 'staging']) }, { context: 'KUBERNETES', key: 'team' }],
    source: 'builtin',
  };
  return `{"eventId":${eventId.toString()},${JSON.stringify(rest).slice(1)}\n`;
}

export function describeEventSet({ count, anchorMs, spanMs }: EventSetOptions): EventSetInfo {
  return { count, fromMs: anchorMs - spanMs - 1, toMs: anchorMs, filterEntityId: entityIdFor(7), filterEventType: FILTER_EVENT_TYPE };
}

/** Start times decrease from the anchor with jitter, so ties and near-ties occur as in a real feed. */
export function* generateEventLines(options: EventSetOptions): Generator<string> {
  const rng = createRng(options.seed);
  const step = options.spanMs / options.count;
  const shape = { openShare: options.openShare ?? DEFAULT_OPEN_SHARE, entityCount: options.entityCount ?? DEFAULT_ENTITY_COUNT };
  for (let i = 0; i < options.count; i++) {
    const jitter = rng.chance(0.1) ? 0 : Math.floor(rng.next() * step);
    yield eventLine(rng, Math.floor(options.anchorMs - 1 - i * step - jitter), shape);
  }
}

/** Writes the set as JSONL, oldest line last, and flushes it to disk; returns what the figures need to query it. */
export async function writeEventsJsonl(path: string, options: EventSetOptions): Promise<EventSetInfo> {
  const out = createWriteStream(path);
  let chunk = '';
  for (const line of generateEventLines(options)) {
    chunk += line;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  await flushDirtyPages();
  return describeEventSet(options);
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomEventId, seededRandom } from '../../src/server/feed/synthetic-events.js';

/**
 * A real HTTP events feed over an in-memory event set, following the spec's paging rules: newest first
 * (startTime desc, ties by id), at most 150 per page, an opaque base64 keyset cursor that carries the query,
 * 400 for a timeframe over 2 years or from after to. Events keep their 64-bit `eventId` as decimal text and are
 * rendered with it as a bare JSON number, as the real service does. Tests add and close events between runs.
 */
export interface FeedEvent {
  eventId: string;
  startTime: number;
  endTime?: number;
  eventStatus: 'OPEN' | 'CLOSED';
  eventType: string;
  entityId: string;
  [field: string]: unknown;
}

export interface EventsFeedServerOptions {
  events?: FeedEvent[];
  now?: () => number;
  pageSize?: number;
  /** `start`: an event matches when its start is in [from, to]; `startOrEnd` (the real service): start or end. */
  inclusion?: 'start' | 'startOrEnd';
  /** Serve multi-line JSON (as the spec example is written). */
  pretty?: boolean;
}

export interface EventsFeedServer {
  readonly url: string;
  /** Query string of every events request, in order. */
  readonly requests: string[];
  add(...events: FeedEvent[]): void;
  /** Closes an event (`<eventId>_<startTime>`): status CLOSED and the given end time. */
  closeEvent(id: string, endTime: number): void;
  /** Answer the next `times` requests with `status` (Infinity: until `fail(0)`). */
  fail(status: number, times?: number): void;
  stop(): Promise<void>;
}

export const TWO_YEARS_MS = 730 * 86_400_000;

export function eventKey(event: FeedEvent): string {
  return `${event.eventId}_${event.startTime}`;
}

export function renderEvent(event: FeedEvent, pretty = false): string {
  const { eventId, ...rest } = event;
  const text = JSON.stringify({ eventId: '\u0000EID', ...rest, id: eventKey(event) }, null, pretty ? 2 : undefined);
  return text.replace('"\\u0000EID"', eventId);
}

interface StoredEvent {
  readonly event: FeedEvent;
  readonly key: string;
}

interface Query {
  from: number;
  to: number;
  eventType?: string;
  entityId?: string;
}

export async function startEventsFeedServer(options: EventsFeedServerOptions = {}): Promise<EventsFeedServer> {
  const { now = Date.now, pageSize = 150, inclusion = 'startOrEnd', pretty = false } = options;
  let records: StoredEvent[] = [];
  let byEntity = new Map<string, StoredEvent[]>();
  const byKey = new Map<string, StoredEvent>();
  let version = 0;
  const totals = new Map<string, number>();
  const requests: string[] = [];
  let failure = { status: 0, times: 0 };
  const add = (more: readonly FeedEvent[]): void => {
    const added = more.map((event) => ({ event: { ...event }, key: eventKey(event) }));
    for (const record of added) byKey.set(record.key, record);
    records = records.concat(added);
    records.sort((a, b) => b.event.startTime - a.event.startTime || (a.key < b.key ? -1 : 1));
    byEntity = new Map();
    for (const record of records) {
      const list = byEntity.get(record.event.entityId);
      if (list) list.push(record);
      else byEntity.set(record.event.entityId, [record]);
    }
    version++;
  };
  add(options.events ?? []);

  const matches = (event: FeedEvent, q: Query): boolean => {
    if (q.eventType && event.eventType !== q.eventType) return false;
    if (q.entityId && event.entityId !== q.entityId) return false;
    const inWindow = (t: number | undefined): boolean => t !== undefined && t >= q.from && t <= q.to;
    return inWindow(event.startTime) || (inclusion === 'startOrEnd' && inWindow(event.endTime));
  };

  /** The events a query can match, in feed order: one entity's list when it filters by entity. */
  const candidates = (q: Query): StoredEvent[] => (q.entityId ? (byEntity.get(q.entityId) ?? []) : records);

  const total = (q: Query): number => {
    const key = `${version}:${JSON.stringify(q)}`;
    let count = totals.get(key);
    if (count === undefined) {
      count = candidates(q).filter((record) => matches(record.event, q)).length;
      totals.set(key, count);
    }
    return count;
  };

  const answerPage = (params: URLSearchParams): { status: number; body: string } => {
    const parsed = parseRequest(params, now());
    if ('error' in parsed) return { status: 400, body: errorBody(parsed.error) };
    const { q, after } = parsed;
    const page: FeedEvent[] = [];
    let next: FeedEvent | undefined;
    const list = candidates(q);
    // Nothing that starts after `to` can match (an event ends after it starts), whatever the inclusion rule.
    const start = Math.max(firstIndexAfter(list, after), partitionPoint(list, (r) => r.event.startTime > q.to));
    for (let i = start; i < list.length && next === undefined; i++) {
      const event = (list[i] as StoredEvent).event;
      if (inclusion === 'start' && event.startTime < q.from) break;
      if (!matches(event, q)) continue;
      if (page.length < pageSize) page.push(event);
      else next = event;
    }
    const last = page[page.length - 1];
    const cursor = next && last ? encodeCursor(q, { s: last.startTime, id: eventKey(last) }) : null;
    const head = `"nextCursor":${JSON.stringify(cursor)},"from":${q.from},"to":${q.to},"totalEventCount":${total(q)},"nextEventId":${next ? next.eventId : 'null'},"nextEventStartTms":${next ? next.startTime : 'null'}`;
    const items = page.map((event) => renderEvent(event, pretty));
    const sep = pretty ? ',\n  ' : ',';
    return { status: 200, body: pretty ? `{\n  ${head.replaceAll(',"', ',\n  "')},\n  "events": [\n  ${items.join(sep)}\n  ]\n}` : `{${head},"events":[${items.join(sep)}]}` };
  };

  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || !/^(\/e\/[^/]+)?\/api\/v1\/events$/.test(url.pathname)) return send(res, 404, errorBody('not found'));
    requests.push(url.searchParams.toString());
    if (failure.times > 0) {
      failure.times--;
      return send(res, failure.status, errorBody('injected failure'));
    }
    const { status, body } = answerPage(url.searchParams);
    send(res, status, body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    add: (...events) => add(events),
    closeEvent(id, endTime) {
      const record = byKey.get(id);
      if (!record) throw new Error(`no event ${id}`);
      record.event.eventStatus = 'CLOSED';
      record.event.endTime = endTime;
      version++;
    },
    fail(status, times = Infinity) {
      failure = { status, times: status === 0 ? 0 : times };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function errorBody(message: string): string {
  return JSON.stringify({ error: { code: 400, message, constraintViolations: [{ path: 'query', message, parameterLocation: 'QUERY', location: null }] } });
}

type Position = { s: number; id: string };

function encodeCursor(q: Query, after: Position): string {
  return Buffer.from(JSON.stringify({ q, after })).toString('base64');
}

function parseRequest(params: URLSearchParams, now: number): { q: Query; after?: Position } | { error: string } {
  const cursor = params.get('cursor');
  if (cursor) {
    try {
      const decoded = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { q: Query; after: Position };
      if (typeof decoded.after?.s !== 'number' || typeof decoded.q?.from !== 'number') throw new Error('shape');
      return decoded;
    } catch {
      return { error: 'invalid cursor' };
    }
  }
  const to = params.has('to') ? Number(params.get('to')) : now;
  const from = params.has('from') ? Number(params.get('from')) : to - 30 * 86_400_000;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return { error: 'from and to must be integers' };
  if (from > to) return { error: 'from must not be after to' };
  if (to - from > TWO_YEARS_MS) return { error: 'the timeframe must not exceed 2 years' };
  return { q: { from, to, eventType: params.get('eventType') ?? undefined, entityId: params.get('entityId') ?? undefined } };
}

/** Index of the first event after the keyset position (startTime desc, id asc); 0 without a position. */
function firstIndexAfter(records: readonly StoredEvent[], after: Position | undefined): number {
  if (!after) return 0;
  return partitionPoint(records, (r) => r.event.startTime > after.s || (r.event.startTime === after.s && r.key <= after.id));
}

/** Number of leading records for which `before` holds (it must hold for a prefix only). */
function partitionPoint(records: readonly StoredEvent[], before: (record: StoredEvent) => boolean): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(records[mid] as StoredEvent)) low = mid + 1;
    else high = mid;
  }
  return low;
}

// One seeded generator for the project: the feed server's event sets come from the same stream as the simulator's.
export { randomEventId, seededRandom } from '../../src/server/feed/synthetic-events.js';

const TYPES = ['CUSTOM_DEPLOYMENT', 'CUSTOM_INFO', 'AVAILABILITY_EVENT', 'ERROR_EVENT', 'SLOW_DISK', 'CPU_SATURATED'];
/** Tag values that trip naive scanners: quotes, brackets, braces, backslashes, unicode, line separators. */
const AWKWARD = ['plain', 'say "hi"', 'a]b}c{d[e', 'back\\slash\\', 'ümlaut ✓ 𝄞', 'line\u2028sep', '{"nested":[1,2]}', 'tab\there'];

export interface GenerateOptions {
  count: number;
  seed?: number;
  /** Events start uniformly in [from, to). */
  from: number;
  to: number;
  /** Share of events still open (no endTime). */
  openShare?: number;
}

export function generateEvents({ count, seed = 1, from, to, openShare = 0.1 }: GenerateOptions): FeedEvent[] {
  const random = seededRandom(seed);
  const events: FeedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const startTime = from + Math.floor(random() * (to - from));
    const open = random() < openShare;
    const host = `HOST-${String(Math.floor(random() * 50)).padStart(16, '0')}`;
    events.push({
      eventId: randomEventId(random),
      startTime,
      ...(open ? {} : { endTime: startTime + Math.floor(random() * 3_600_000) }),
      entityId: host,
      entityName: `host ${host.slice(-2)}`,
      severityLevel: 'PERFORMANCE',
      impactLevel: 'INFRASTRUCTURE',
      eventType: TYPES[Math.floor(random() * TYPES.length)] as string,
      eventStatus: open ? 'OPEN' : 'CLOSED',
      tags: [{ context: 'CONTEXTLESS', key: AWKWARD[i % AWKWARD.length] as string }],
      source: 'events-feed-server',
    });
  }
  return events;
}

/** A FetchPage for the feed server (test glue standing in for the API client, which does retries). */
export function feedFetchPage(url: string): (query: URLSearchParams, signal: AbortSignal) => Promise<string> {
  return async (query, signal) => {
    const response = await fetch(`${url}/api/v1/events?${query.toString()}`, { signal });
    const text = await response.text();
    if (response.status !== 200) throw Object.assign(new Error(`feed answered ${response.status}: ${text}`), { status: response.status });
    return text;
  };
}

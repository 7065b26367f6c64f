import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { ServedBaseline } from './bare-http.js';

/** What the naive feed keeps per event: the parsed fields it filters on, and the line it answers with. */
interface HeldEvent {
  startTime: number;
  endTime: number;
  id: string;
  eventType: string;
  entityId: string;
  raw: string;
}

interface NaiveQuery {
  from: number;
  to: number;
  eventType?: string;
  entityId?: string;
  after?: { startTime: number; id: string };
}

const PAGE = 150;

async function loadEvents(jsonl: string): Promise<HeldEvent[]> {
  const events: HeldEvent[] = [];
  const lines = createInterface({ input: createReadStream(jsonl), crlfDelay: Infinity });
  for await (const raw of lines) {
    if (raw === '') continue;
    const e = JSON.parse(raw) as Omit<HeldEvent, 'raw'>;
    events.push({ startTime: e.startTime, endTime: e.endTime, id: e.id, eventType: e.eventType, entityId: e.entityId, raw });
  }
  return events;
}

function parseQuery(url: URL): NaiveQuery {
  const cursor = url.searchParams.get('cursor');
  if (cursor) return JSON.parse(Buffer.from(cursor, 'base64url').toString()) as NaiveQuery;
  const num = (key: string, fallback: number): number => Number(url.searchParams.get(key) ?? fallback);
  const query: NaiveQuery = { from: num('from', Date.now() - 30 * 86_400_000), to: num('to', Date.now()) };
  const eventType = url.searchParams.get('eventType');
  const entityId = url.searchParams.get('entityId');
  if (eventType) query.eventType = eventType;
  if (entityId) query.entityId = entityId;
  return query;
}

const newestFirst = (a: HeldEvent, b: HeldEvent): number => b.startTime - a.startTime || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The page baseline: every request filters all held events, sorts the matches and slices one page — what a
 * first implementation does, and what a keyset index exists to avoid.
 */
function answerPage(events: readonly HeldEvent[], q: NaiveQuery): string {
  const matches = events.filter(
    (e) =>
      ((e.startTime >= q.from && e.startTime <= q.to) || (e.endTime >= q.from && e.endTime <= q.to)) &&
      (q.eventType === undefined || e.eventType === q.eventType) &&
      (q.entityId === undefined || e.entityId === q.entityId),
  );
  matches.sort(newestFirst);
  const after = q.after;
  const start = after ? matches.findIndex((e) => newestFirst(e, { ...e, startTime: after.startTime, id: after.id }) > 0) : 0;
  const page = start < 0 ? [] : matches.slice(start, start + PAGE);
  const next = start < 0 ? undefined : matches[start + PAGE];
  const last = page[page.length - 1];
  const nextCursor = next && last ? Buffer.from(JSON.stringify({ ...q, after: { startTime: last.startTime, id: last.id } })).toString('base64url') : null;
  return `{"events":[${page.map((e) => e.raw).join(',')}],"totalEventCount":${matches.length},"from":${q.from},"to":${q.to},"nextCursor":${JSON.stringify(nextCursor)}}`;
}

export async function serveNaiveEvents(jsonl: string): Promise<ServedBaseline & { events: number }> {
  const events = await loadEvents(jsonl);
  const server: Server = createServer((req, res) => {
    try {
      const body = answerPage(events, parseQuery(new URL(req.url ?? '/', 'http://x')));
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } catch {
      res.writeHead(400).end('{}');
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    events: events.length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

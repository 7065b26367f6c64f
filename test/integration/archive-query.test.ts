import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullEvents } from '../../src/archive/pull-events.js';
import { archiveStats, newestEvents, queryArchive, type NewestOptions, type QueryArchiveOptions } from '../../src/archive/query-archive.js';
import { newestArchived } from '../../src/daemon/daemon-console.js';
import { MAX_LISTED_TYPES } from '../../src/console/console-data.js';
import { eventKey, feedFetchPage, renderEvent, startEventsFeedServer, type EventsFeedServer, type FeedEvent } from '../helpers/events-feed-server.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 10, 12); // events live on 2030-01-08 … 2030-01-10
let dir: string;
let feed: EventsFeedServer;

function event(n: number, overrides: Partial<FeedEvent>): FeedEvent {
  return {
    eventId: `-43142119369289201${String(n).padStart(2, '0')}`,
    startTime: T0 - n * 3_600_000,
    endTime: T0 - n * 3_600_000 + 60_000,
    eventStatus: 'CLOSED',
    eventType: 'CUSTOM_INFO',
    entityId: 'HOST-0000000000000001',
    entityName: 'host one',
    ...overrides,
  };
}

const EVENTS: FeedEvent[] = [
  event(1, { eventType: 'CUSTOM_DEPLOYMENT' }),
  event(2, { eventStatus: 'OPEN', endTime: undefined, entityId: 'HOST-0000000000000002' }),
  event(3, {}),
  event(30, { eventType: 'CUSTOM_DEPLOYMENT', entityId: 'HOST-0000000000000002' }),
  event(50, { eventStatus: 'OPEN', endTime: undefined }),
];

async function collect(options: Omit<QueryArchiveOptions, 'archiveDir'>): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of queryArchive({ archiveDir: dir, ...options })) ids.push(`${item.event.id}:${item.event.eventStatus}`);
  return ids;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashcd-query-'));
  let now = T0 + 60_000;
  feed = await startEventsFeedServer({ events: EVENTS, now: () => now });
  const pull = (): Promise<unknown> =>
    pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: dir, env: 'prod', since: { back: 5 * DAY }, signal: new AbortController().signal, clock: { now: () => now, sleep: async () => undefined } });
  await pull();
  // The open event of 2030-01-10 closes: a second version of it is appended.
  feed.closeEvent(eventKey(EVENTS[1] as FeedEvent), T0);
  now += 60_000;
  await pull();
});
afterAll(async () => {
  await feed.stop();
  await rm(dir, { recursive: true, force: true });
});

const id = (n: number): string => eventKey(EVENTS.find((e) => e.startTime === T0 - n * 3_600_000) as FeedEvent);

describe('queryArchive', () => {
  it('streams every version, oldest partition first, each line as archived', async () => {
    const lines: string[] = [];
    for await (const item of queryArchive({ archiveDir: dir })) lines.push(item.raw);
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(renderEvent(EVENTS[4] as FeedEvent));
    expect(lines.every((line) => line.startsWith('{"eventId":-43142119369289201'))).toBe(true);
  });

  it('filters by type, entity, status and start time', async () => {
    expect(await collect({ eventType: 'CUSTOM_DEPLOYMENT' })).toEqual([`${id(30)}:CLOSED`, `${id(1)}:CLOSED`]);
    expect(await collect({ entityId: 'HOST-0000000000000002' })).toEqual([`${id(30)}:CLOSED`, `${id(2)}:OPEN`, `${id(2)}:CLOSED`]);
    expect(await collect({ status: 'OPEN' })).toEqual([`${id(50)}:OPEN`, `${id(2)}:OPEN`]);
    expect(await collect({ from: T0 - 3 * 3_600_000, to: T0 - 2 * 3_600_000 })).toEqual([`${id(3)}:CLOSED`, `${id(2)}:OPEN`, `${id(2)}:CLOSED`]);
  });

  it('with latest, folds each event to its newest version before matching the status', async () => {
    expect(await collect({ latest: true, entityId: 'HOST-0000000000000002' })).toEqual([`${id(30)}:CLOSED`, `${id(2)}:CLOSED`]);
    expect(await collect({ latest: true, status: 'OPEN' })).toEqual([`${id(50)}:OPEN`]);
  });

  it('never opens partitions outside [from, to]', async () => {
    // A partition whose events.jsonl is a directory fails loudly if anything tries to read it.
    await mkdir(join(dir, 'prod', 'date=2029-06-01', 'events.jsonl'), { recursive: true });
    const bad: string[] = [];
    const inRange = await collect({ from: Date.UTC(2030, 0, 9), to: Date.UTC(2030, 0, 11), onBadLine: (file) => bad.push(file) });
    expect(inRange).toHaveLength(5);
    expect(bad).toEqual([]);
    await expect(collect({ from: Date.UTC(2029, 5, 1) })).rejects.toMatchObject({ code: 'EISDIR' });
    await rm(join(dir, 'prod', 'date=2029-06-01'), { recursive: true });
  });

  it('reports a truncated line with its file and line number and goes on', async () => {
    const file = join(dir, 'prod', 'date=2030-01-10', 'events.jsonl');
    const original = await readFile(file, 'utf8');
    const lines = original.split('\n');
    lines[1] = (lines[1] as string).slice(0, 25);
    await writeFile(file, lines.join('\n'));
    try {
      const bad: [string, number, string][] = [];
      const found = await collect({ onBadLine: (f, line, message) => bad.push([f, line, message]) });
      expect(found).toHaveLength(5);
      expect(bad).toEqual([[file, 2, expect.stringContaining('not JSON')]]);
    } finally {
      await writeFile(file, original);
    }
  });
});

describe('newestEvents', () => {
  const newest = async (options: Omit<NewestOptions, 'archiveDir'>): Promise<string[]> => {
    const ids: string[] = [];
    for await (const item of newestEvents({ archiveDir: dir, ...options })) ids.push(`${item.event.id}:${item.event.eventStatus}`);
    return ids;
  };

  it('gives the newest events, each by its newest version, newest day first, and one more than asked for', async () => {
    expect(await newest({ limit: 10 })).toEqual([`${id(1)}:CLOSED`, `${id(2)}:CLOSED`, `${id(3)}:CLOSED`, `${id(30)}:CLOSED`, `${id(50)}:OPEN`]);
    expect(await newest({ limit: 2 })).toEqual([`${id(1)}:CLOSED`, `${id(2)}:CLOSED`, `${id(3)}:CLOSED`]);
    expect(await newest({ limit: 0 })).toEqual([`${id(1)}:CLOSED`]);
  });

  it('keeps by what every version shares as it reads, and wants by the newest version once a day is folded', async () => {
    expect(await newest({ limit: 10, keep: (e) => e.entityId === 'HOST-0000000000000002' })).toEqual([`${id(2)}:CLOSED`, `${id(30)}:CLOSED`]);
    // Event 2 was OPEN, then CLOSED: only its newest version counts.
    expect(await newest({ limit: 10, wanted: (e) => e.eventStatus === 'OPEN' })).toEqual([`${id(50)}:OPEN`]);
    expect(await newest({ limit: 10, from: T0 - 40 * 3_600_000, eventType: 'CUSTOM_DEPLOYMENT' })).toEqual([`${id(1)}:CLOSED`, `${id(30)}:CLOSED`]);
  });

  it('keeps one id of two environments apart, and gives the newest version to the console filter by the entity it names then', async () => {
    const two = await mkdtemp(join(tmpdir(), 'dashcd-newest-envs-'));
    try {
      const start = Date.UTC(2030, 2, 1, 12);
      const first = renderEvent({ eventId: '7', startTime: start, eventStatus: 'OPEN', eventType: 'T', entityId: 'HOST-1' });
      // The later version names the entity: a filter by the older one's text must not find the event, as before.
      const named = renderEvent({ eventId: '7', startTime: start, endTime: start + 1, eventStatus: 'CLOSED', eventType: 'T', entityId: 'HOST-1', entityName: 'web-01' });
      for (const env of ['a', 'b']) {
        await mkdir(join(two, env, 'date=2030-03-01'), { recursive: true });
        await writeFile(join(two, env, 'date=2030-03-01', 'events.jsonl'), `${first}\n${named}\n`);
      }
      const both: string[] = [];
      for await (const item of newestEvents({ archiveDir: two, limit: 5 })) both.push(`${item.env} ${item.event.eventStatus}`);
      expect(both).toEqual(['a CLOSED', 'b CLOSED']);
      const window = { archiveDir: two, env: 'a' };
      expect((await newestArchived(window, { text: 'host-1' })).events).toEqual([]);
      expect((await newestArchived(window, { text: 'web-01' })).events.map((e) => e.status)).toEqual(['CLOSED']);
      expect((await newestArchived(window, { type: 'T', status: 'CLOSED' })).events).toHaveLength(1);
    } finally {
      await rm(two, { recursive: true, force: true });
    }
  });

  it('folds a busy day keeping only what can still be among the newest, and gives what a whole fold gives', async () => {
    const busy = await mkdtemp(join(tmpdir(), 'dashcd-newest-'));
    try {
      const day = Date.UTC(2030, 1, 1);
      const lines: string[] = [];
      // 5,000 events in no order, each OPEN then (for most) CLOSED, versions apart in the file.
      const starts = Array.from({ length: 5_000 }, (_, i) => day + ((i * 7_919) % 5_000) * 1_000);
      for (const [i, start] of starts.entries()) lines.push(renderEvent({ eventId: String(100_000 + i), startTime: start, eventStatus: 'OPEN', eventType: 'T', entityId: 'HOST-1' }));
      for (const [i, start] of starts.entries()) if (i % 3 !== 0) lines.push(renderEvent({ eventId: String(100_000 + i), startTime: start, endTime: start + 1, eventStatus: 'CLOSED', eventType: 'T', entityId: 'HOST-1' }));
      await mkdir(join(busy, 'prod', 'date=2030-02-01'), { recursive: true });
      await writeFile(join(busy, 'prod', 'date=2030-02-01', 'events.jsonl'), `${lines.join('\n')}\n`);
      const whole: string[] = [];
      for await (const item of queryArchive({ archiveDir: busy, latest: true })) whole.push(`${item.event.id}:${item.event.eventStatus}`);
      const got: string[] = [];
      for await (const item of newestEvents({ archiveDir: busy, limit: 40 })) got.push(`${item.event.id}:${item.event.eventStatus}`);
      expect(got).toEqual(whole.reverse().slice(0, 41));
    } finally {
      await rm(busy, { recursive: true, force: true });
    }
  });
});

describe('newestArchived: the types an events page offers', () => {
  it('lists at most MAX_LISTED_TYPES of them, however many the read meets (200,000 of their own made a 26 MB page)', async () => {
    const many = await mkdtemp(join(tmpdir(), 'dashcd-types-'));
    try {
      const day = Date.UTC(2030, 1, 1);
      const lines = Array.from({ length: MAX_LISTED_TYPES + 50 }, (_, i) => renderEvent({ eventId: String(200_000 + i), startTime: day + i * 1_000, eventStatus: 'CLOSED', endTime: day + i * 1_000 + 1, eventType: `TYPE_${i}`, entityId: 'HOST-1' }));
      await mkdir(join(many, 'prod', 'date=2030-02-01'), { recursive: true });
      await writeFile(join(many, 'prod', 'date=2030-02-01', 'events.jsonl'), `${lines.join('\n')}\n`);
      const read = await newestArchived({ archiveDir: many, from: day, to: day + DAY }, { text: 'matches nothing' });
      expect(read.events).toEqual([]);
      expect(read.types).toHaveLength(MAX_LISTED_TYPES);
    } finally {
      await rm(many, { recursive: true, force: true });
    }
  });
});

describe('archiveStats', () => {
  it('counts each event once by its newest version, by type, status and day', async () => {
    expect(await archiveStats({ archiveDir: dir, env: 'prod' })).toEqual({
      events: 5,
      versions: 6,
      byType: { CUSTOM_DEPLOYMENT: 2, CUSTOM_INFO: 3 },
      byStatus: { CLOSED: 4, OPEN: 1 },
      byDay: { '2030-01-08': 1, '2030-01-09': 1, '2030-01-10': 3 },
    });
  });

  it('counts only the versions of the events inside [from, to], not every line of an overlapping partition', async () => {
    // 2030-01-10 holds events 1, 2 (two versions) and 3; from T0-2h keeps events 1 and 2.
    expect(await archiveStats({ archiveDir: dir, env: 'prod', from: T0 - 2 * 3_600_000, to: T0 })).toMatchObject({ events: 2, versions: 3 });
    expect(await archiveStats({ archiveDir: dir, env: 'prod', from: T0 - 3 * 3_600_000, to: T0 - 3 * 3_600_000 })).toMatchObject({ events: 1, versions: 1 });
  });
});

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pullEvents, type PullEventsOptions } from '../../src/archive/pull-events.js';
import {
  eventKey,
  feedFetchPage,
  generateEvents,
  renderEvent,
  startEventsFeedServer,
  TWO_YEARS_MS,
  type EventsFeedServer,
  type FeedEvent,
} from '../helpers/events-feed-server.js';
import { feedScratchPerTest } from '../helpers/scratch.js';

const DAY = 86_400_000;
const scratch = feedScratchPerTest('dashcd-archive-');

function startFeed(events: FeedEvent[], options: Parameters<typeof startEventsFeedServer>[0] = {}): Promise<EventsFeedServer> {
  return scratch.startFeed({ events, ...options });
}

function pull(feed: EventsFeedServer, extra: Partial<PullEventsOptions> = {}): ReturnType<typeof pullEvents> {
  return pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: scratch.dir, env: 'prod', since: { back: 30 * DAY }, signal: new AbortController().signal, ...extra });
}

/** Every archive line by partition folder. */
async function readArchive(env = 'prod'): Promise<Map<string, string[]>> {
  const partitions = new Map<string, string[]>();
  const envDir = join(scratch.dir, env);
  for (const name of (await readdir(envDir)).sort()) {
    if (!name.startsWith('date=')) continue;
    const text = await readFile(join(envDir, name, 'events.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    partitions.set(name, text.slice(0, -1).split('\n'));
  }
  return partitions;
}

function allLines(archive: Map<string, string[]>): string[] {
  return [...archive.values()].flat();
}

function versionOf(line: string): string {
  const event = JSON.parse(line) as { id: string; eventStatus: string; endTime?: number };
  return `${event.id}|${event.eventStatus}|${event.endTime ?? ''}`;
}

function expectEachVersionOnce(lines: string[], events: FeedEvent[]): void {
  const versions = lines.map(versionOf);
  expect(new Set(versions).size).toBe(versions.length);
  for (const event of events) expect(versions).toContain(`${eventKey(event)}|${event.eventStatus}|${event.endTime ?? ''}`);
}

describe('pullEvents', () => {
  it('writes every event once, by UTC start day, each line byte for byte as the feed rendered it', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 700, from: now - 20 * DAY, to: now - 60_000, seed: 7 });
    const feed = await startFeed(events);
    const summary = await pull(feed);
    const archive = await readArchive();
    const lines = allLines(archive);
    expect(summary).toMatchObject({ events: 700, written: 700, duplicates: 0, runs: 1, pages: 5 });
    expect(new Set(lines)).toEqual(new Set(events.map((event) => renderEvent(event))));
    for (const [partition, partitionLines] of archive) {
      for (const line of partitionLines) {
        const startTime = (JSON.parse(line) as { startTime: number }).startTime;
        expect(partition).toBe(`date=${new Date(startTime).toISOString().slice(0, 10)}`);
      }
    }
    const negative = events.find((event) => event.eventId.startsWith('-') && !Number.isSafeInteger(Number(event.eventId))) as FeedEvent;
    expect(lines.some((line) => line.startsWith(`{"eventId":${negative.eventId},`))).toBe(true);
  });

  it('ends a completed pass idle, and a pass an error ends stopped, never idle (the CLI said "pass done" before a 403)', async () => {
    const now = Date.now();
    const feed = await startFeed(generateEvents({ count: 40, from: now - DAY, to: now - 1000 }));
    const phases: string[] = [];
    await pull(feed, { onProgress: (progress) => phases.push(progress.phase) });
    expect(phases.at(-1)).toBe('idle');
    phases.length = 0;
    const refused = Object.assign(new Error('403 from GET …/events: Token is missing required scope'), { status: 403 });
    await expect(pull(feed, { fetchPage: () => Promise.reject(refused), onProgress: (progress) => phases.push(progress.phase) })).rejects.toThrow('403');
    expect(phases).not.toContain('idle');
    expect(phases.at(-1)).toBe('stopped');
  });

  it('writes nothing new when run a second time', async () => {
    const now = Date.now();
    const feed = await startFeed(generateEvents({ count: 400, from: now - 10 * DAY, to: now - 60_000, openShare: 0.2 }));
    await pull(feed);
    const before = await readArchive();
    const second = await pull(feed);
    expect(second.written).toBe(0);
    expect(second.duplicates).toBe(second.events);
    expect(await readArchive()).toEqual(before);
  });

  it('writes exactly one new line for each event that closed, and nothing else', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 300, from: now - 2 * 3_600_000, to: now - 60_000, openShare: 0.3 });
    const feed = await startFeed(events);
    await pull(feed);
    const open = events.filter((event) => event.eventStatus === 'OPEN');
    expect(open.length).toBeGreaterThan(20);
    const closing = open.slice(0, 20);
    for (const event of closing) feed.closeEvent(eventKey(event), event.startTime + 1234);
    const before = allLines(await readArchive());
    const second = await pull(feed);
    const after = allLines(await readArchive());
    expect(second.written).toBe(20);
    expect(after.length).toBe(before.length + 20);
    const added = after.filter((line) => !before.includes(line));
    expect(added.map((line) => JSON.parse(line).id).sort()).toEqual(closing.map(eventKey).sort());
    for (const line of added) expect(JSON.parse(line)).toMatchObject({ eventStatus: 'CLOSED' });
  });

  it('reaches back to open events that started before the last checkpoint, until they close', async () => {
    const now = Date.now();
    const old = generateEvents({ count: 5, from: now - 10 * 3_600_000, to: now - 6 * 3_600_000, openShare: 1, seed: 3 });
    const recent = generateEvents({ count: 50, from: now - 3_600_000, to: now - 60_000, openShare: 0, seed: 4 });
    // `start` inclusion: a feed that lists an event only while its start is in the window, so only re-polling finds the close.
    const feed = await startFeed([...old, ...recent], { inclusion: 'start' });
    const first = await pull(feed);
    expect(first.openEvents).toBe(5);
    for (const event of old) feed.closeEvent(eventKey(event), now - 1000);
    feed.requests.length = 0;
    const second = await pull(feed);
    expect(second.written).toBe(5);
    expect(second.openEvents).toBe(0);
    const firstQuery = new URLSearchParams(feed.requests[0]);
    expect(Number(firstQuery.get('from'))).toBeLessThanOrEqual(Math.min(...old.map((event) => event.startTime)));
    // Once nothing is open, the next run only reaches back by the late-arrival margin.
    feed.requests.length = 0;
    await pull(feed);
    expect(Number(new URLSearchParams(feed.requests[0]).get('from'))).toBeGreaterThan(now - 3_600_000);
    expectEachVersionOnce(allLines(await readArchive()), [...old, ...recent]);
  });

  it('finds open events older than the reach-back bound with narrow per-entity spot checks', async () => {
    const now = Date.now();
    const old = generateEvents({ count: 8, from: now - 5 * DAY, to: now - 4 * DAY, openShare: 1, seed: 3 });
    const recent = generateEvents({ count: 400, from: now - 10 * DAY, to: now - 60_000, openShare: 0, seed: 4 });
    const feed = await startFeed([...old, ...recent], { inclusion: 'start' });
    await pull(feed);
    for (const event of old.slice(0, 5)) feed.closeEvent(eventKey(event), now - 1000);
    feed.requests.length = 0;
    const second = await pull(feed);
    expect(second).toMatchObject({ written: 5, openEvents: 3 });
    const queries = feed.requests.map((query) => new URLSearchParams(query)).filter((query) => query.has('from'));
    const [main, ...spots] = queries;
    expect(Number(main?.get('from'))).toBeGreaterThan(now - DAY);
    expect(spots.length).toBeGreaterThan(0);
    for (const spot of spots) {
      expect(spot.get('entityId')).toMatch(/^HOST-/);
      expect(Number(spot.get("to")) - Number(spot.get("from"))).toBeLessThanOrEqual(DAY + 1);
    }
    expectEachVersionOnce(allLines(await readArchive()), [...old, ...recent]);
    const third = await pull(feed);
    expect(third.written).toBe(0);
  });

  it('rejects when its signal aborts as the last spot check page becomes durable', async () => {
    const now = Date.now();
    const old = generateEvents({ count: 8, from: now - 5 * DAY, to: now - 4 * DAY, openShare: 1, seed: 3 });
    const recent = generateEvents({ count: 400, from: now - 10 * DAY, to: now - 60_000, openShare: 0, seed: 4 });
    // Two archives of the same history: the first counts the second pull's pages, the second stops on the last one.
    const secondPull = async (archiveDir: string, stopAtPage?: number): Promise<Awaited<ReturnType<typeof pull>>> => {
      const feed = await startFeed([...old, ...recent], { inclusion: 'start' });
      await pull(feed, { archiveDir });
      for (const event of old.slice(0, 5)) feed.closeEvent(eventKey(event), now - 1000);
      const controller = new AbortController();
      const onProgress = (progress: { phase: string; pages: number }): void => {
        if (progress.phase === 'pulling' && progress.pages === stopAtPage) controller.abort(new Error('stop'));
      };
      return pull(feed, { archiveDir, signal: controller.signal, onProgress });
    };
    const counted = await secondPull(join(scratch.dir, 'counted'));
    expect(counted.written).toBe(5);
    await expect(secondPull(join(scratch.dir, 'stopped'), counted.pages)).rejects.toThrow('stop');
  });

  it('splits a backfill longer than the 2-year limit into allowed windows', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 120, from: now - 5 * 365 * DAY, to: now - DAY, seed: 11 });
    const feed = await startFeed(events);
    const summary = await pull(feed, { since: { back: 5 * 365 * DAY + DAY } });
    expect(summary.written).toBe(120);
    const windows = feed.requests.map((query) => new URLSearchParams(query)).filter((query) => query.has('from'));
    expect(windows.length).toBeGreaterThanOrEqual(3);
    for (const query of windows) expect(Number(query.get('to')) - Number(query.get('from'))).toBeLessThanOrEqual(TWO_YEARS_MS);
    expectEachVersionOnce(allLines(await readArchive()), events);
  });

  it('keeps one line per version when the feed lists the same event twice, and compacts multi-line events', async () => {
    const now = Date.now();
    const [event] = generateEvents({ count: 1, from: now - DAY, to: now - 60_000, seed: 5 }) as [FeedEvent];
    const feed = await startFeed([event, { ...event }], { pretty: true });
    const summary = await pull(feed);
    const lines = allLines(await readArchive());
    expect(summary).toMatchObject({ events: 2, written: 1, duplicates: 1 });
    expect(lines).toEqual([renderEvent(event)]);
  });
});

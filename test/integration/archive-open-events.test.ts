import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pullEvents } from '../../src/archive/pull-events.js';
import { eventKey, feedFetchPage, generateEvents, type EventsFeedServer, type FeedEvent } from '../helpers/events-feed-server.js';
import { feedScratchPerTest } from '../helpers/scratch.js';

const DAY = 86_400_000;
const scratch = feedScratchPerTest('dashcd-open-events-');

function pull(feed: EventsFeedServer): ReturnType<typeof pullEvents> {
  return pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: scratch.dir, env: 'prod', since: { back: 30 * DAY }, signal: new AbortController().signal });
}

const envDir = (): string => join(scratch.dir, 'prod');

async function partitionDays(): Promise<string[]> {
  return (await readdir(envDir())).filter((name) => name.startsWith('date=')).sort();
}

/** Ids per partition folder whose last archived line is OPEN, read from the partitions themselves. */
async function openInPartitions(): Promise<Map<string, Set<string>>> {
  const byDay = new Map<string, Set<string>>();
  for (const day of await partitionDays()) {
    const open = new Set<string>();
    for (const line of (await readFile(join(envDir(), day, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean)) {
      const event = JSON.parse(line) as { id: string; eventStatus: string };
      if (event.eventStatus === 'OPEN') open.add(event.id);
      else open.delete(event.id);
    }
    byDay.set(day, open);
  }
  return byDay;
}

async function versions(): Promise<string[]> {
  const lines: string[] = [];
  for (const day of await partitionDays()) lines.push(...(await readFile(join(envDir(), day, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean));
  return lines.map((line) => {
    const event = JSON.parse(line) as { id: string; eventStatus: string; endTime?: number };
    return `${event.id}|${event.eventStatus}|${event.endTime ?? ''}`;
  });
}

function closeAll(feed: EventsFeedServer, events: FeedEvent[], at: number): void {
  for (const event of events.filter((e) => e.eventStatus === 'OPEN')) feed.closeEvent(eventKey(event), at);
}

describe('a pull with many open events', () => {
  it('keeps its checkpoint a few hundred bytes however many events are open, each day’s open events beside its partition', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 3000, from: now - 20 * DAY, to: now - 60_000, openShare: 1, seed: 11 });
    const feed = await scratch.startFeed({ events });
    const summary = await pull(feed);
    expect(summary.openEvents).toBe(3000);
    // Before, every open event was a member of the checkpoint (about 100 bytes each: 300 kB here).
    expect((await stat(join(envDir(), '_checkpoint.json'))).size).toBeLessThan(1024);
    for (const [day, open] of await openInPartitions()) {
      const index = JSON.parse(await readFile(join(envDir(), day, '_open.json'), 'utf8')) as { bytes: number; open: [string][] };
      expect(new Set(index.open.map(([id]) => id))).toEqual(open);
      expect(index.bytes).toBe((await stat(join(envDir(), day, 'events.jsonl'))).size);
    }
  });

  it('counts, for a stream of one event type, only that type’s open events, in the days it wrote as in the others', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 900, from: now - 9 * DAY, to: now - 60_000, openShare: 0.7, seed: 14 });
    const feed = await scratch.startFeed({ events });
    await pull(feed);
    const type = events[0]?.eventType as string;
    const openOfType = events.filter((event) => event.eventStatus === 'OPEN' && event.eventType === type);
    const openOfOthers = events.filter((event) => event.eventStatus === 'OPEN' && event.eventType !== type);
    expect(openOfType.length).toBeGreaterThan(20);
    expect(openOfOthers.length).toBeGreaterThan(20);
    // Closing every other one gives the typed stream's pull lines to write on most days, so it drops days it wrote.
    const closing = openOfType.filter((_, index) => index % 2 === 0);
    closeAll(feed, closing, now - 1000);
    const typed = await pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: scratch.dir, env: 'prod', since: { back: 30 * DAY }, eventType: type, signal: new AbortController().signal });
    expect(typed.written).toBe(closing.length);
    expect(typed.openEvents).toBe(openOfType.length - closing.length);
  });

  it('finds every closing again when the open events beside the partitions are missing, damaged or stale', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 600, from: now - 12 * DAY, to: now - 2 * DAY, openShare: 0.7, seed: 12 });
    // A feed listing an event only while its start is in the window: only the spot checks, planned from the open
    // events beside the partitions, find these closings.
    const feed = await scratch.startFeed({ events, inclusion: 'start' });
    await pull(feed);
    const [missing, damaged, stale] = await partitionDays();
    await writeFile(join(envDir(), missing as string, '_open.json'), '');
    await writeFile(join(envDir(), damaged as string, '_open.json'), '{"version":1,"bytes":');
    // Written for a shorter partition: as a run killed between its appends and this file leaves it.
    const staleFile = join(envDir(), stale as string, '_open.json');
    const index = JSON.parse(await readFile(staleFile, 'utf8')) as { bytes: number };
    await writeFile(staleFile, JSON.stringify({ version: 1, bytes: index.bytes - 1, open: [] }));
    closeAll(feed, events, now - 1000);
    const second = await pull(feed);
    expect(second.openEvents).toBe(0);
    const closed = events.filter((event) => event.eventStatus === 'OPEN').length;
    expect(second.written).toBe(closed);
    const all = await versions();
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((version) => version.includes('|CLOSED|')).length).toBe(events.length);
  });

  it('goes on when the open events beside a partition cannot be read or written, and finds their closings', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 300, from: now - 6 * DAY, to: now - 2 * DAY, openShare: 0.7, seed: 13 });
    const feed = await scratch.startFeed({ events, inclusion: 'start' });
    await pull(feed);
    // A directory where the file should be: reading it fails (EISDIR, as EACCES or EIO would) and so does replacing it.
    const blocked = join(envDir(), (await partitionDays())[0] as string, '_open.json');
    await rm(blocked);
    await mkdir(blocked);
    closeAll(feed, events, now - 1000);
    const second = await pull(feed);
    expect(second.openEvents).toBe(0);
    expect(second.written).toBe(events.filter((event) => event.eventStatus === 'OPEN').length);
    const all = await versions();
    expect(all.filter((version) => version.includes('|CLOSED|')).length).toBe(events.length);
    expect((await stat(blocked)).isDirectory()).toBe(true);
  });
});

import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { followEvents, pullEvents, type PullEventsOptions } from '../../src/archive/pull-events.js';
import type { Clock } from '../../src/lib/clock.js';
import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';
import { eventKey, feedFetchPage, generateEvents, type EventsFeedServer, type FeedEvent } from '../helpers/events-feed-server.js';
import { feedScratchPerTest } from '../helpers/scratch.js';

const DAY = 86_400_000;
const scratch = feedScratchPerTest('dashcd-archive-');

function pull(feed: EventsFeedServer, extra: Partial<PullEventsOptions> = {}): ReturnType<typeof pullEvents> {
  return pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: scratch.dir, env: 'prod', since: { back: 30 * DAY }, signal: new AbortController().signal, ...extra });
}

async function archiveLines(): Promise<string[]> {
  const envDir = join(scratch.dir, 'prod');
  const lines: string[] = [];
  for (const name of (await readdir(envDir)).filter((n) => n.startsWith('date='))) {
    const text = await readFile(join(envDir, name, 'events.jsonl'), 'utf8');
    lines.push(...text.split('\n').filter((line) => line !== ''));
  }
  return lines;
}

async function readCheckpointFile(): Promise<{ streams: Record<string, { run: { from: number; to: number; position: number } | null; watermark: number | null }> }> {
  return JSON.parse(await readFile(join(scratch.dir, 'prod', '_checkpoint.json'), 'utf8'));
}

function expectExactlyOnce(lines: string[], events: FeedEvent[]): void {
  const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id);
  expect(ids.length).toBe(events.length);
  expect(new Set(ids)).toEqual(new Set(events.map(eventKey)));
}

describe('pullEvents when a run cannot finish', () => {
  it('rejects with its checkpoint intact, and the next run resumes where it stopped without doubling anything', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 3000, from: now - 20 * DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    let pages = 0;
    const failing = pull(feed, {
      checkpointEveryMs: 0,
      onProgress: () => {
        if (++pages === 6) feed.fail(503);
      },
    });
    await expect(failing).rejects.toThrow('503');
    const checkpoint = await readCheckpointFile();
    const run = checkpoint.streams.all?.run;
    expect(run).toBeTruthy();
    expect(run?.position).toBeLessThan(run?.to ?? 0);
    const partial = await archiveLines();
    expect(partial.length).toBeGreaterThanOrEqual(6 * 150);

    feed.fail(0);
    feed.requests.length = 0;
    const resumed = await pull(feed);
    expect(Number(new URLSearchParams(feed.requests[0]).get('to'))).toBe(run?.position);
    expect(resumed.events).toBeLessThan(3000);
    expectExactlyOnce(await archiveLines(), events);
    expect((await readCheckpointFile()).streams.all?.run).toBeNull();
  });

  it('stops when its signal aborts, keeping a checkpoint that a later run resumes from', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 1500, from: now - 5 * DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    const controller = new AbortController();
    let pages = 0;
    const aborted = pull(feed, { signal: controller.signal, onProgress: () => ++pages === 3 && controller.abort(new Error('stop')) });
    await expect(aborted).rejects.toThrow('stop');
    expect((await readCheckpointFile()).streams.all?.run).toBeTruthy();
    await pull(feed);
    expectExactlyOnce(await archiveLines(), events);
  });

  it('rejects when its signal aborts as the last page becomes durable, leaving the run for the next pull', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 600, from: now - 2 * DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    const controller = new AbortController();
    const lastPage = (progress: { phase: string; events: number }): boolean => progress.phase === 'pulling' && progress.events === events.length;
    const aborted = pull(feed, { signal: controller.signal, onProgress: (progress) => lastPage(progress) && controller.abort(new Error('stop')) });
    await expect(aborted).rejects.toThrow('stop');
    expect((await readCheckpointFile()).streams.all?.run).toBeTruthy();
    await pull(feed);
    expectExactlyOnce(await archiveLines(), events);
  });

  it('drops an unfinished last line left by a cut-short append and writes that event once', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 10, from: now - 3_600_000, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    await pull(feed);
    const envDir = join(scratch.dir, 'prod');
    const [partition] = (await readdir(envDir)).filter((n) => n.startsWith('date='));
    const file = join(envDir, partition as string, 'events.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    // Simulate the crash: the newest event's line got half written and the checkpoint never recorded the run.
    const torn = lines.pop() as string;
    await writeFile(file, `${lines.join('\n')}\n${torn.slice(0, 40)}`);
    await rm(join(envDir, '_checkpoint.json'));
    const again = await pull(feed);
    expect(again.written).toBe(1);
    expect((await readFile(file, 'utf8')).endsWith(`${torn}\n`)).toBe(true);
    expectExactlyOnce(await archiveLines(), events);
  });

  it('removes the temp files a pull killed while writing its checkpoint or a day\'s _open.json left (they piled up)', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 10, from: now - 3_600_000, to: now - 60_000, openShare: 0.5 });
    const feed = await scratch.startFeed({ events });
    await pull(feed);
    const envDir = join(scratch.dir, 'prod');
    const [partition] = (await readdir(envDir)).filter((n) => n.startsWith('date='));
    await writeFile(join(envDir, '_checkpoint.json.tmp-0a1b2c'), '{"half');
    await writeFile(join(envDir, partition as string, '_open.json.tmp-3d4e5f'), '');
    // The run read again from the start: its day's partition is loaded.
    await rm(join(envDir, '_checkpoint.json'));
    expect((await pull(feed)).written).toBe(0);
    expect((await readdir(envDir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect((await readdir(join(envDir, partition as string))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expectExactlyOnce(await archiveLines(), events);
  });

  it('refuses to run while another pull holds the environment', async () => {
    const now = Date.now();
    const feed = await scratch.startFeed({ events: generateEvents({ count: 3000, from: now - DAY, to: now - 1000 }) });
    let holding: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (holding = resolve));
    const first = pull(feed, { onProgress: () => holding() });
    await started;
    await expect(pull(feed)).rejects.toMatchObject({ code: 'LOCKED' });
    await first;
  });
});

describe('durability order', () => {
  it('puts a checkpoint in place only when every event it declares done is in fsynced partition bytes', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 1500, from: now - 3 * DAY, to: now - 1000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    const pending = new Map<string, string>();
    let synced = '';
    const temp = new Map<string, string>();
    const checkpoints: { position: number; to: number; done: boolean }[] = [];
    const missing: string[] = [];
    const fs: FsLayer = {
      ...nodeFs,
      async open(path, flags, mode) {
        const handle = await nodeFs.open(path, flags, mode);
        return {
          write: async (data) => {
            if (path.endsWith('events.jsonl')) pending.set(path, (pending.get(path) ?? '') + String(data));
            else temp.set(path, String(data));
            return handle.write(data);
          },
          sync: async () => {
            // Only what was written before fsync started is certainly durable once it returns.
            const flushed = pending.get(path) ?? '';
            pending.delete(path);
            await handle.sync();
            synced += flushed;
          },
          close: () => handle.close(),
        };
      },
      rename: async (from, to) => {
        if (to.endsWith('_checkpoint.json')) {
          const stream = JSON.parse(temp.get(from) ?? '{}').streams.all as { run: { position: number; to: number } | null; watermark: number };
          const done = stream.run === null;
          const position = stream.run?.position ?? 0;
          const until = stream.run?.to ?? stream.watermark;
          checkpoints.push({ position, to: until, done });
          for (const event of events) {
            if (event.startTime >= position && event.startTime <= until && !synced.includes(`"id":"${eventKey(event)}"`)) missing.push(eventKey(event));
          }
        }
        return nodeFs.rename(from, to);
      },
    };
    await pull(feed, { fs, checkpointEveryMs: 0 });
    expect(missing).toEqual([]);
    // Mid-run checkpoints (each run's windows, plus the adaptive interval) and the final one were all checked.
    expect(checkpoints.filter((c) => !c.done).length).toBeGreaterThanOrEqual(2);
    expect(checkpoints.at(-1)?.done).toBe(true);
  });
});

describe('followEvents', () => {
  it('keeps polling, archives events that arrive meanwhile, and resolves with totals when aborted', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 200, from: now - DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    const controller = new AbortController();
    const later = generateEvents({ count: 30, from: now - 30_000, to: now - 1000, openShare: 0, seed: 99 });
    let added = false;
    const summary = await followEvents({
      fetchPage: feedFetchPage(feed.url),
      archiveDir: scratch.dir,
      env: 'prod',
      since: { back: 2 * DAY },
      intervalMs: 5,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.phase !== 'idle') return;
        if (!added) {
          added = true;
          feed.add(...later);
        } else if (progress.written >= 230) controller.abort();
      },
    });
    expect(summary.written).toBe(230);
    expect(summary.runs).toBeGreaterThanOrEqual(2);
    expectExactlyOnce(await archiveLines(), [...events, ...later]);
  });

  it('survives a failing feed and catches up once it answers again', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 100, from: now - DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    feed.fail(500, 2);
    const controller = new AbortController();
    // Fake time: each page request takes a second of it, and waits pass at once.
    let fakeNow = now;
    const clock: Clock = { now: () => fakeNow, sleep: async (ms, signal) => ((fakeNow += ms), await setImmediate(undefined, { signal })) };
    const fetchPage = feedFetchPage(feed.url);
    let fetches = 0;
    const polls: { durationMs: number; ok: boolean; fetches: number }[] = [];
    const summary = await followEvents({
      fetchPage: (query, signal) => ((fakeNow += 1000), (fetches += 1), fetchPage(query, signal)),
      clock,
      archiveDir: scratch.dir,
      env: 'prod',
      since: { back: 2 * DAY },
      intervalMs: 5,
      signal: controller.signal,
      onProgress: (progress) => progress.phase === 'idle' && progress.written === 100 && controller.abort(),
      onPoll: (poll) => polls.push({ ...poll, fetches: fetches - polls.reduce((sum, p) => sum + p.fetches, 0) }),
    });
    expect(summary.written).toBe(100);
    // One report per poll, failed ones included, each with its duration on the injected clock.
    expect(polls.map((p) => p.ok)).toEqual([false, false, true]);
    for (const poll of polls) expect(poll.durationMs).toBe(poll.fetches * 1000);
    expect(polls[2]?.fetches).toBeGreaterThan(0);
    expectExactlyOnce(await archiveLines(), events);
  });
});

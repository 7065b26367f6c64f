import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsPullCommand } from '../../src/cli/commands/events-pull.js';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { eventKey, renderEvent, type FeedEvent } from '../helpers/events-feed-server.js';
import { tempDirPerTest } from '../helpers/scratch.js';

let dir: string;
tempDirPerTest('dashcd-cursor-loop-', (created) => (dir = created));

const HOUR = 3_600_000;
/** Pages served before the feed gives up and ends its chain, so a pull that misses the loop ends (and fails). */
const GIVE_UP_AFTER = 200;

function event(n: number, now: number): FeedEvent {
  const startTime = now - n * HOUR;
  return { eventId: `-431421193692892010${n}`, startTime, endTime: startTime + 60_000, eventStatus: 'CLOSED', eventType: 'CUSTOM_INFO', entityId: 'HOST-0000000000000001' };
}

interface LoopingFeed {
  readonly url: string;
  /** The `cursor` parameter of every events request, in order (null for a window's first page). */
  readonly cursors: (string | null)[];
  /** From now on the chain ends: B's page names no next cursor. */
  heal(): void;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/**
 * A feed over three events whose cursors go round: the window's page (e1) names A, A's page (e2) names B, and B's
 * page (e3) names A again, so every cursor differs from the one just before it. Window parameters are ignored.
 */
async function startLoopingFeed(events: readonly FeedEvent[]): Promise<LoopingFeed> {
  const cursors: (string | null)[] = [];
  let healed = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.endsWith('/api/v1/events')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not found"}}');
      return;
    }
    const cursor = url.searchParams.get('cursor');
    cursors.push(cursor);
    const index = cursor === null ? 0 : cursor === 'A' ? 1 : 2;
    const loopNext = ['A', 'B', 'A'][index] as string;
    const next = (healed && index === 2) || cursors.length >= GIVE_UP_AFTER ? null : loopNext;
    const body = `{"nextCursor":${JSON.stringify(next)},"totalEventCount":3,"from":0,"to":${Date.now()},"events":[${renderEvent(events[index] as FeedEvent)}]}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, cursors, heal: () => (healed = true) };
}

function pull(feed: LoopingFeed): Promise<CliResult> {
  return runDashcd(['events', 'pull', '--target', `${feed.url}/e/x`, '--env', 'x', '--since', '1d'], {
    cwd: dir,
    env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET', DASHCD_RETRY_DEADLINE: '1s' },
    commands: [eventsPullCommand],
  });
}

async function archivedIds(): Promise<string[]> {
  const envDir = join(dir, 'events-archive', 'x');
  const ids: string[] = [];
  for (const name of (await readdir(envDir)).filter((n) => n.startsWith('date=')).sort()) {
    const text = await readFile(join(envDir, name, 'events.jsonl'), 'utf8');
    ids.push(...text.split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { id: string }).id));
  }
  return ids.sort();
}

describe('dashcd events pull from a feed whose cursors go round in a loop', () => {
  it('exits 4 at the first cursor seen again, keeps what it wrote, and the next run loses and doubles nothing', async () => {
    const now = Date.now();
    const events = [event(1, now), event(2, now), event(3, now)];
    const feed = await startLoopingFeed(events);

    const first = await pull(feed);
    expect(first.code).toBe(4);
    expect(first.stderr).toContain(
      "the feed's cursors go round in a loop: after 3 pages of one window it named cursor 'A' a second time; stopping instead of looping — the checkpoint is saved: once this is fixed, the same command resumes",
    );
    expect(feed.cursors).toEqual([null, 'A', 'B']);
    // The pages before the one naming A again are archived; the checkpoint claims no more than them.
    expect(await archivedIds()).toEqual([eventKey(events[0] as FeedEvent), eventKey(events[1] as FeedEvent)].sort());
    const checkpoint = JSON.parse(await readFile(join(dir, 'events-archive', 'x', '_checkpoint.json'), 'utf8'));
    expect(checkpoint.streams.all.watermark).toBeNull();
    expect(checkpoint.streams.all.run.position).toBe((events[1] as FeedEvent).startTime + 1);

    feed.heal();
    const second = await pull(feed);
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(await archivedIds()).toEqual(events.map(eventKey).sort());
  });
});

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventKey, generateEvents, renderEvent, seededRandom, startEventsFeedServer, type EventsFeedServer } from '../helpers/events-feed-server.js';

const DAY = 86_400_000;
const CHILD = fileURLToPath(new URL('../helpers/pull-child.mjs', import.meta.url));
const COMPILED = fileURLToPath(new URL('../../dist/archive/pull-events.js', import.meta.url));

let base: string;
/** The archive of the test running: each test pulls into its own folder under `base`. */
let dir: string;
let feed: EventsFeedServer;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'dashcd-crash-'));
});
afterAll(async () => {
  await feed?.stop();
  await rm(base, { recursive: true, force: true });
});

interface ChildOutcome {
  readonly killed: boolean;
  readonly pages: number;
  readonly output: string;
}

/** Runs a pull in a child process; with `killAfterPages`, SIGKILLs it `delayMs` after it reported that many pages. */
function runChild(killAfterPages?: number, delayMs = 0, checkpointEveryMs = 250): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, feed.url, String(30 * DAY)], {
      env: { ...process.env, CHECKPOINT_EVERY_MS: String(checkpointEveryMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let pages = 0;
    let killing = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      pages = output.match(/^page /gm)?.length ?? 0;
      if (killAfterPages !== undefined && pages >= killAfterPages && !killing) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ killed: true, pages, output });
      else if (code === 0) resolve({ killed: false, pages, output });
      else reject(new Error(`pull child exited ${code}: ${output}`));
    });
  });
}

async function archiveLines(): Promise<string[]> {
  const envDir = join(dir, 'prod');
  const lines: string[] = [];
  for (const name of (await readdir(envDir)).filter((n) => n.startsWith('date='))) {
    const text = await readFile(join(envDir, name, 'events.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    lines.push(...text.slice(0, -1).split('\n'));
  }
  return lines;
}

/*
 * The kills land after a random number of pages (150 events each): sizes and kill ranges go together, so that most
 * kills land partway through a pull. 10,000 events are 67 pages, killed after 1–20 of them (6 kills take ~63 pages on
 * average, as 1–40 of 134 pages did at 20,000: the same moments in the pull at half the events).
 */
describe('a pull killed with SIGKILL at random moments', () => {
  it('resumes each time and ends with every event version exactly once, eventIds digit for digit', async () => {
    expect(existsSync(COMPILED), 'the crash test runs the compiled library: run `npm run build` (npm test does)').toBe(true);
    dir = join(base, 'few-open');
    const now = Date.now();
    const events = generateEvents({ count: 10_000, from: now - 10 * DAY, to: now - 60_000, openShare: 0.03, seed: 2024 });
    feed = await startEventsFeedServer({ events });
    const random = seededRandom(Date.now());
    const allowed = new Set(events.map((event) => renderEvent(event)));
    let interrupted = 0;
    for (let round = 0; round < 6; round++) {
      if (round === 3) {
        // Events change between crashes: each closing must add exactly one version (half of the ~300 open ones).
        const closedAt = Date.now();
        for (const event of events.filter((e) => e.eventStatus === 'OPEN').slice(0, 150)) {
          feed.closeEvent(eventKey(event), closedAt);
          event.eventStatus = 'CLOSED';
          event.endTime = closedAt;
          allowed.add(renderEvent(event));
        }
      }
      const outcome = await runChild(1 + Math.floor(random() * 20), Math.floor(random() * 8), round % 2 === 0 ? 250 : 0);
      if (outcome.killed) interrupted++;
    }
    expect(interrupted).toBeGreaterThanOrEqual(4);
    const final = await runChild();
    expect(final.output).toMatch(/^done /m);

    const lines = await archiveLines();
    expect(new Set(lines).size).toBe(lines.length);
    const versions = lines.map((line) => {
      const event = JSON.parse(line) as { id: string; eventStatus: string; endTime?: number };
      return `${event.id}|${event.eventStatus}|${event.endTime ?? ''}`;
    });
    expect(new Set(versions).size).toBe(versions.length);
    for (const line of lines) expect(allowed.has(line)).toBe(true);
    const written = new Set(lines);
    const missing = events.filter((event) => !written.has(renderEvent(event)));
    expect(missing).toEqual([]);

    const again = await runChild();
    expect(again.output).toMatch(/"written":0/);
  }, 300_000);

  it('with most events open, finds every one of them again when they close, each closing once', async () => {
    await feed.stop();
    dir = join(base, 'most-open');
    const now = Date.now();
    // 27 pages, first killed after 1–15 of them.
    const events = generateEvents({ count: 4000, from: now - 10 * DAY, to: now - 2 * DAY, openShare: 0.8, seed: 2025 });
    // Listed only while their start is in the window: only the open events kept beside the partitions lead back.
    feed = await startEventsFeedServer({ events, inclusion: 'start' });
    const random = seededRandom(Date.now());
    for (let round = 0; round < 3; round++) await runChild(1 + Math.floor(random() * 15), Math.floor(random() * 8));
    expect((await runChild()).output).toMatch(/^done /m);
    const closedAt = Date.now();
    const open = events.filter((event) => event.eventStatus === 'OPEN');
    for (const event of open) feed.closeEvent(eventKey(event), closedAt);
    // Killed while it writes the closings (spot checks, day after day), then resumed.
    for (let round = 0; round < 3; round++) await runChild(1 + Math.floor(random() * 5), Math.floor(random() * 20));
    const final = await runChild();
    expect(final.output).toMatch(/"openEvents":0/);
    const versions = (await archiveLines()).map((line) => {
      const event = JSON.parse(line) as { id: string; eventStatus: string };
      return `${event.id}|${event.eventStatus}`;
    });
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions.filter((version) => version.endsWith('|CLOSED')).length).toBe(events.length);
    expect(versions.length).toBe(events.length + open.length);
  }, 300_000);
});

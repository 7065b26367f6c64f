import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsPullCommand } from '../../src/cli/commands/events-pull.js';
import { runCli } from '../../src/cli/run.js';
import { createLogger } from '../../src/lib/logger.js';
import { generateEvents, startEventsFeedServer, type EventsFeedServer } from '../helpers/events-feed-server.js';
import { waitFor } from '../helpers/wait.js';

const DAY = 86_400_000;
let cwd: string;
let feed: EventsFeedServer;

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-pull-progress-'));
  const now = Date.now();
  feed = await startEventsFeedServer({ events: generateEvents({ count: 400, from: now - 2 * DAY, to: now - 1000, openShare: 0 }) });
});
afterEach(async () => {
  await feed.stop();
  await rm(cwd, { recursive: true, force: true });
});

/** A stream that keeps what is written; `isTTY` is what a terminal has and a pipe lacks. */
function capture(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join('') });
}

/** `dashcd events pull` as main.ts runs it, with stderr a terminal or not, and its log lines kept. */
async function pull(stderrIsTTY: boolean, extra: string[] = [], signal = new AbortController().signal, logStream = capture(false)): Promise<{ code: number; stdout: string; stderr: string; logs: Record<string, unknown>[] }> {
  const stdout = capture(false);
  const stderr = capture(stderrIsTTY);
  const io = {
    stdout,
    stderr,
    env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET' },
    cwd,
    log: createLogger({ level: 'info', destination: logStream }),
    signal,
  };
  const code = await runCli([eventsPullCommand], ['events', 'pull', '--target', `${feed.url}/e/prod`, '--since', '7d', ...extra], io);
  const logs = logLines(logStream);
  return { code, stdout: stdout.text(), stderr: stderr.text(), logs };
}

function logLines(stream: { text(): string }): Record<string, unknown>[] {
  return stream.text().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('events pull progress', () => {
  it('in a terminal, redraws one live line on stderr (pages, events, events/s, how far back) and ends it with a newline', async () => {
    const result = await pull(true);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^400 new event versions in /);
    expect(result.stderr.startsWith('\r\x1b[K')).toBe(true);
    expect(result.stderr.endsWith('\n')).toBe(true);
    // Each redraw returns to the start of the line and clears it: one line on screen, never a scroll of lines.
    const frames = result.stderr.slice(0, -1).split('\r\x1b[K').slice(1);
    expect(frames.every((frame) => !frame.includes('\n'))).toBe(true);
    expect(frames[0]).toMatch(/^pulling: \d+ pages, \d+ events \(\d+ new\), \d+ events\/s, back to (\d{4}-\d\d-\d\d \d\d:\d\d|—)$/);
    expect(frames.at(-1)).toMatch(/^up to date: \d+ pages, 400 events \(400 new\), \d+ events\/s, archived up to \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(result.logs.filter((l) => l.component === 'events-pull' && /events pull (progress|pass done)/.test(String(l.msg)))).toEqual([]);
  });

  it('without a terminal, writes no control characters to stderr and reports through log lines instead', async () => {
    const result = await pull(false);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.logs.find((l) => l.msg === 'events pull pass done')).toMatchObject({ component: 'events-pull', events: 400, written: 400 });
  });

  it('with --follow, each pass done counts its own events, not the command\'s so far (a one-page pass said 271,220 events)', async () => {
    const controller = new AbortController();
    const logStream = capture(false);
    const passes = (): Record<string, unknown>[] => logLines(logStream).filter((l) => l.msg === 'events pull pass done');
    const now = Date.now();
    void waitFor(() => passes().length >= 1, { what: 'the first pass done' })
      .then(() => feed.add(...generateEvents({ count: 5, from: now - 60_000, to: now - 1000, openShare: 0, seed: 77 })))
      .then(() => waitFor(() => passes().length >= 2 && passes().some((p, i) => i > 0 && p.written === 5), { what: 'a pass that wrote the 5 new events' }))
      .finally(() => controller.abort(new Error('received SIGINT')));
    const result = await pull(false, ['--follow', '--interval', '1s'], controller.signal, logStream);
    expect(result.code).toBe(0);
    const [first, ...later] = passes();
    expect(first).toMatchObject({ written: 400 });
    expect(later.find((p) => p.written === 5)).toMatchObject({ written: 5 });
    expect(later.every((p) => (p.written as number) <= 5 && (p.events as number) < 400)).toBe(true);
  });
});

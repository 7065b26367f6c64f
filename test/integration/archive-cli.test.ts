import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsPullCommand } from '../../src/cli/commands/events-pull.js';
import { eventsQueryCommand } from '../../src/cli/commands/events-query.js';
import { eventsStatsCommand } from '../../src/cli/commands/events-stats.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { encodeEvent } from '../../src/server/feed/event-record.js';
import type { EventStore } from '../../src/server/feed/event-store.js';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { generateEvents, renderEvent } from '../helpers/events-feed-server.js';
import { captureLog } from '../helpers/log-capture.js';
import { feedScratchPerTest } from '../helpers/scratch.js';
import { waitFor } from '../helpers/wait.js';
import { startTestServer } from '../helpers/server.js';

const DAY = 86_400_000;
const commands = [eventsPullCommand, eventsQueryCommand, eventsStatsCommand];
const scratch = feedScratchPerTest('dashcd-events-cli-');

function dashcd(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runDashcd(argv, { cwd: scratch.dir, env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET', DASHCD_RETRY_DEADLINE: '1s', ...env }, commands });
}

describe('dashcd events pull', () => {
  it('archives the target into events-archive/<env>, prints a summary, and writes nothing new the second time', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 400, from: now - 3 * DAY, to: now - 1000, openShare: 0.1 });
    const feed = await scratch.startFeed({ events });
    const first = await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--since', '7d']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/^400 new event versions in .*events-archive\/prod \(400 fetched/);
    const partitions = (await readdir(join(scratch.dir, 'events-archive', 'prod'))).filter((name) => name.startsWith('date='));
    expect(partitions.length).toBeGreaterThanOrEqual(3);
    const second = await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`]);
    expect(second.stdout).toMatch(/^0 new event versions/);
    // In the project's repository, like the data dir: kept out of `git status` (it showed as untracked, for `git add -A`).
    expect(await readFile(join(scratch.dir, 'events-archive', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('leaves a folder --archive names alone, unless it made it (a shared folder of the user’s gets no .gitignore)', async () => {
    const now = Date.now();
    const feed = await scratch.startFeed({ events: generateEvents({ count: 10, from: now - DAY, to: now - 1000 }) });
    await mkdir(join(scratch.dir, 'shared'));
    expect((await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--archive', 'shared'])).code).toBe(0);
    expect(await readdir(join(scratch.dir, 'shared'))).toEqual(['prod']);
    expect((await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--archive', 'made/here'])).code).toBe(0);
    expect((await readdir(join(scratch.dir, 'made', 'here'))).sort()).toEqual(['.gitignore', 'prod']);
  });

  it('names the archive folder with --env when dashcd.yaml declares no environments (a hosted tenant archived as prod)', async () => {
    const now = Date.now();
    const feed = await scratch.startFeed({ events: generateEvents({ count: 30, from: now - DAY, to: now - 1000 }) });
    const result = await dashcd(['events', 'pull', '--target', `${feed.url}/e/abc123`, '--env', 'tenant', '--since', '7d']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^30 new event versions in .*events-archive\/tenant \(/);
    expect((await readdir(join(scratch.dir, 'events-archive'))).sort()).toEqual(['.gitignore', 'tenant']);
  });

  it('refuses a folder name that is no environment id before it opens anything (no embedded store started)', async () => {
    const result = await dashcd(['events', 'pull', '--env', '../etc']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("'../etc' is not an environment id");
    expect(await readdir(scratch.dir)).not.toContain('.dashcd');
  });

  it('takes --type in any letter case, as events query does, asking the feed for the type as it is named', async () => {
    const feed = await scratch.startFeed({ events: generateEvents({ count: 5, from: Date.now() - DAY, to: Date.now() - 1000 }) });
    const result = await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--type', 'custom_deployment']);
    expect(result.code).toBe(0);
    expect(feed.requests.length).toBeGreaterThan(0);
    // The window's first page names the type; the pages after it carry only the cursor.
    expect(new URLSearchParams(feed.requests[0]).get('eventType')).toBe('CUSTOM_DEPLOYMENT');
  });

  it('exits 4 with its checkpoint intact when the feed keeps failing', async () => {
    const feed = await scratch.startFeed({ events: generateEvents({ count: 10, from: Date.now() - DAY, to: Date.now() - 1000 }) });
    feed.fail(400);
    const result = await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`]);
    expect(result.code).toBe(4);
    // A 400 is no better on a rerun (a 503 is: archive-pull-retry's tests).
    expect(result.stderr).toMatch(/checkpoint is saved: once this is fixed, the same command resumes\n$/);
    expect(JSON.parse(await readFile(join(scratch.dir, 'events-archive', 'prod', '_checkpoint.json'), 'utf8')).streams.all.run).toBeTruthy();
  });

  it('interrupted part way, says the checkpoint is saved and the same command resumes (it said only "interrupted")', async () => {
    const feed = await scratch.startFeed({ events: generateEvents({ count: 10, from: Date.now() - DAY, to: Date.now() - 1000 }) });
    feed.fail(503, Infinity);
    const controller = new AbortController();
    const interrupt = (): void => controller.abort(new Error('received SIGINT'));
    void waitFor(() => feed.requests.length >= 1, { what: 'a request that failed' }).then(interrupt, interrupt);
    const result = await runDashcd(['events', 'pull', '--target', `${feed.url}/e/prod`], {
      cwd: scratch.dir,
      env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET', DASHCD_RETRY_DEADLINE: '10m' },
      commands,
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('dashcd events pull: interrupted (received SIGINT); the checkpoint is saved: run the same command again to resume\n');
  });

  it('keeps polling with --follow until interrupted, then exits 0 with the totals', async () => {
    const now = Date.now();
    const feed = await scratch.startFeed({ events: generateEvents({ count: 200, from: now - DAY, to: now - 1000 }) });
    const controller = new AbortController();
    // Interrupted once it has polled twice after the first pull: a condition, so a slow machine only takes longer.
    const interrupt = (): void => controller.abort(new Error('SIGINT'));
    void waitFor(() => feed.requests.length >= 3, { what: 'two follow-up polls' }).then(interrupt, interrupt);
    const result = await runDashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--follow', '--interval', '1s'], {
      cwd: scratch.dir,
      env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET' },
      commands,
      signal: controller.signal,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^200 new event versions/);
    expect(feed.requests.length).toBeGreaterThanOrEqual(3);
  });

  it('with --follow, logs a failed poll as the target\'s message, without a stack', async () => {
    const feed = await scratch.startFeed({ events: generateEvents({ count: 10, from: Date.now() - DAY, to: Date.now() - 1000 }) });
    feed.fail(400);
    const { lines, log } = captureLog();
    const controller = new AbortController();
    const interrupt = (): void => controller.abort(new Error('SIGINT'));
    const failed = (): Array<Record<string, unknown>> => lines.filter((line) => line['msg'] === 'events pull failed; retrying');
    void waitFor(() => failed().length >= 1, { what: 'a failed poll logged' }).then(interrupt, interrupt);
    const result = await runDashcd(['events', 'pull', '--target', `${feed.url}/e/prod`, '--follow', '--interval', '1s'], {
      cwd: scratch.dir,
      env: { DT_API_TOKEN: 'dt0c01.TESTTESTTEST.SECRET' },
      commands,
      signal: controller.signal,
      log,
    });
    expect(result.code).toBe(0);
    const [first] = failed();
    // The client's errors say what failed and what to fix; a stack in every retry's line only buried that.
    expect(typeof first?.['err']).toBe('string');
    expect(first?.['err']).toMatch(/^400 from /);
    expect(JSON.stringify(first)).not.toContain('    at ');
  });

  it.each([
    [['--since', 'last week'], /--since: 'last week' is not a time/],
    [['--type', 'NOT_A_TYPE'], /--type 'NOT_A_TYPE' is not an event type of the events API \(e.g. CUSTOM_DEPLOYMENT, AVAILABILITY_EVENT\)\n/],
    [['--type', 'custom_deploymnt'], /--type 'custom_deploymnt' is not an event type of the events API — did you mean CUSTOM_DEPLOYMENT\?\n/],
    [['--env', '../etc'], /'..\/etc' is not an environment id/],
    [['--env', 'a', '--env', 'b'], /events pull names one environment; --env gave a, b/],
    [['--target', 'http://127.0.0.1:9/e/Prod_1'], /'Prod_1' is not an environment id .* name one with --env/],
    [['--interval', '10ms', '--follow'], /--interval must be at least 1s, got '10ms'/],
    [['--interval', '30s'], /--interval sets how often --follow polls: add --follow, or leave --interval out for one pass/],
    [['--target', 'http://127.0.0.1:9/e/Prod'], /'Prod' is not an environment id \(lowercase letters, digits, dashes\) to name an archive folder: name one with --env\n/],
    [['--env', 'Prod'], /'Prod' is not an environment id \(lowercase letters, digits, dashes\) to name an archive folder — did you mean prod\?\n/],
    [['--archive', process.execPath], /is a file, not a folder: point --archive at a folder/],
  ])('rejects %j as a usage error', async (flags, message) => {
    const result = await dashcd(['events', 'pull', '--target', 'http://127.0.0.1:9/e/prod', ...flags]);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(message);
  });

  it('archives the embedded server’s feed with eventIds digit for digit', async () => {
    const server = await startTestServer({ scopes: ['DataExport'] });
    try {
      const store = server.server.environments.get(DEFAULT_ENVIRONMENT)?.events as EventStore;
      const start = Date.now() - 3_600_000;
      const ids = ['-4314211936928920170', '7892432332072369170', '-6388042533023614561'];
      const encoded = ids.map((eventId, i) => {
        const result = encodeEvent({ id: `${eventId}_${start + i}`, eventId: 1, startTime: start + i, endTime: start + i + 5, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', eventStatus: 'CLOSED' });
        if (!result.ok) throw new Error(result.problems.join('; '));
        return result.event;
      });
      await store.put(encoded);
      const result = await dashcd(['events', 'pull', '--since', '1d'], { DT_ENV_URL: server.url, DT_API_TOKEN: server.token });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const query = await dashcd(['events', 'query', '--env', 'local']);
      const lines = query.stdout.trim().split('\n');
      expect(lines).toHaveLength(3);
      for (const eventId of ids) expect(lines.some((line) => line.includes(`"eventId":${eventId},`) && line.includes(`"id":"${eventId}_`))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('dashcd events query and stats', () => {
  async function archiveSome(): Promise<string[]> {
    const now = Date.now();
    const events = generateEvents({ count: 60, from: now - 2 * DAY, to: now - 1000, openShare: 0.2, seed: 9 });
    const feed = await scratch.startFeed({ events });
    expect((await dashcd(['events', 'pull', '--target', `${feed.url}/e/prod`])).code).toBe(0);
    return events.map((event) => renderEvent(event));
  }

  it('prints the archived lines as JSONL when stdout is not a terminal, filtered', async () => {
    const lines = await archiveSome();
    const all = await dashcd(['events', 'query']);
    expect(all.code).toBe(0);
    // Each archived line whole, its environment folder put first.
    expect(new Set(all.stdout.trim().split('\n'))).toEqual(new Set(lines.map((line) => `{"env":"prod",${line.slice(1)}`)));
    const open = await dashcd(['events', 'query', '--status', 'open', '--type', 'CUSTOM_INFO']);
    for (const line of open.stdout.trim().split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ eventStatus: 'OPEN', eventType: 'CUSTOM_INFO' });
  });

  it('prints a table on request and reports a damaged line as FILE:LINE without failing', async () => {
    await archiveSome();
    const partition = (await readdir(join(scratch.dir, 'events-archive', 'prod'))).find((name) => name.startsWith('date=')) as string;
    const file = join(scratch.dir, 'events-archive', 'prod', partition, 'events.jsonl');
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text.slice(0, 30)}\n${text}`);
    const result = await dashcd(['events', 'query', '--format', 'table']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^START \(UTC\)\s+ENV\s+STATUS\s+TYPE\s+ENTITY NAME\s+ENTITY ID\s+ID$/);
    expect(result.stdout.trim().split('\n')).toHaveLength(61);
    expect(result.stderr).toBe(`${file}:1: skipped an unreadable line: not JSON: ${errorOf(text.slice(0, 30))}\n`);
  });

  it('counts by status, type and day', async () => {
    await archiveSome();
    const result = await dashcd(['events', 'stats', '--format', 'json']);
    const stats = JSON.parse(result.stdout).prod;
    expect(stats.events).toBe(60);
    expect(Object.values(stats.byType as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(60);
    const text = await dashcd(['events', 'stats']);
    expect(text.stdout).toMatch(/^prod: 60 events \(60 versions\)\n {2}by status:\n/);
  });

  it('rejects a bad --status or --from as a usage error', async () => {
    expect((await dashcd(['events', 'query', '--status', 'maybe'])).code).toBe(64);
    expect((await dashcd(['events', 'query', '--from', 'last tuesday'])).stderr).toMatch(/--from: 'last tuesday' is not a time/);
  });
});

function errorOf(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

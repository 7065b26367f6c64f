import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runBaselineTask, runDashcdOk } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome, Row } from '../lib/figure.js';
import { startCliServer } from '../lib/cli-server.js';
import type { Sample } from '../lib/stats.js';
import { metric, repeatTasks, type Measurement } from '../lib/repeat.js';
import { withTempDirIn } from '../lib/temp-dir.js';
import type { ServerUnderTest } from '../lib/servers.js';
import { withServer } from '../lib/servers.js';
import { firstQuery } from './event-pages.js';
import { EVENTS_LANE, eventFixture, requireEventsFeed, type EventFixture } from './event-set.js';
import { targetArgs } from './reconcile-runs.js';

const MIN_EVENTS_PER_S = 80_000;

async function countArchivedLines(dir: string): Promise<number> {
  let lines = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const text = await readFile(join(entry.parentPath, entry.name));
    for (const byte of text) if (byte === 0x0a) lines++;
  }
  return lines;
}

/** One `dashcd events pull` into an empty archive; the first run also checks every event landed exactly once. */
export async function pullOnce(ctx: FigureContext, server: ServerUnderTest, count: number, verify: boolean): Promise<Measurement> {
  return withTempDirIn(ctx.workDir, 'archive-', async (archive) => {
    const target = targetArgs(server);
    const run = await runDashcdOk(['events', 'pull', ...target.args, '--archive', archive, '--since', '30d'], { cwd: ctx.workDir, env: target.env, execArgv: ctx.execArgv, timeoutMs: 900_000 });
    if (verify) {
      const lines = await countArchivedLines(archive);
      if (lines !== count) throw new Error(`events pull archived ${lines} lines for ${count} events`);
    }
    return { seconds: run.wallMs / 1000, eventsPerSecond: count / (run.wallMs / 1000) };
  });
}

export async function fetchOnce(ctx: FigureContext, server: ServerUnderTest, fx: EventFixture): Promise<Measurement> {
  const { wallMs, counts } = await runBaselineTask('fetch-pages', { endpoint: server.endpoint, query: firstQuery(fx.info, 'no filter') }, { cwd: ctx.workDir, timeoutMs: 900_000 });
  if (counts['events'] !== fx.info.count) throw new Error(`baseline fetched ${counts['events']} events of ${fx.info.count}`);
  return { seconds: wallMs / 1000, eventsPerSecond: fx.info.count / (wallMs / 1000) };
}

/** Pull (checked once) and the pages-only baseline against one server, interleaved. */
async function pullAgainst(ctx: FigureContext, server: ServerUnderTest, fx: EventFixture): Promise<Record<'dashcd' | 'fetch', Record<string, Sample>>> {
  let verified = false;
  return repeatTasks(ctx, {
    dashcd: async () => {
      const m = await pullOnce(ctx, server, fx.info.count, !verified);
      verified = true;
      return m;
    },
    fetch: () => fetchOnce(ctx, server, fx),
  });
}

async function measurePull(ctx: FigureContext): Promise<FigureOutcome> {
  await requireEventsFeed({ pull: true });
  const count = ctx.sizes.events;
  const fx = await eventFixture(ctx, count);
  const bench = await withServer(ctx, 'dashcd', fx.dataDir, (server) => pullAgainst(ctx, server, fx));
  ctx.progress('again against `dashcd serve` started as a user starts it');
  const cli = await startCliServer(ctx, fx.dataDir, 'DataExport');
  const user = await pullAgainst(ctx, cli, fx).finally(() => cli.stop());
  const n = count.toLocaleString('en-US');
  const row = (label: string, samples: typeof bench): Row => {
    const rate = metric(samples.dashcd, 'eventsPerSecond');
    return {
      label,
      unit: 'events/s',
      better: 'higher',
      value: rate,
      baseline: { label: 'fetching the same pages from the same server, parsing, writing nothing (own process)', value: metric(samples.fetch, 'eventsPerSecond') },
      goal: { text: `≥ ${MIN_EVENTS_PER_S.toLocaleString('en-US')} events/s`, met: rate.median >= MIN_EVENTS_PER_S, limit: MIN_EVENTS_PER_S },
    };
  };
  return {
    rows: [
      row(`dashcd events pull of ${n} events into an empty archive, end to end from \`dashcd serve\` (both as a user runs them)`, user),
      row(`dashcd events pull of ${n} events into an empty archive, from the bench's server process`, bench),
    ],
    details: {
      events: count,
      seconds: metric(user.dashcd, 'seconds'),
      benchServerSeconds: metric(bench.dashcd, 'seconds'),
      measuredAs: 'spawn to exit of `dashcd events pull --since 30d`; the server is `dashcd serve --port 0` with a token from `dashcd token create` (first row) or the bench server process (second); archive line count checked once per server',
    },
  };
}

export const eventsPullFigure: Figure = {
  name: 'events-pull',
  title: 'events pull of 1,000,000 events',
  goal: '≥ 80,000 events/s, durable per page',
  lane: EVENTS_LANE,
  run: measurePull,
};

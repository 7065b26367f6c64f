import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runBaselineTask, runDashcdOk } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { metric, repeatTasks, type Measurement } from '../lib/repeat.js';
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
  const archive = await mkdtemp(join(ctx.workDir, 'archive-'));
  try {
    const target = targetArgs(server);
    const run = await runDashcdOk(['events', 'pull', ...target.args, '--archive', archive, '--since', '30d'], { cwd: ctx.workDir, env: target.env, execArgv: ctx.execArgv, timeoutMs: 900_000 });
    if (verify) {
      const lines = await countArchivedLines(archive);
      if (lines !== count) throw new Error(`events pull archived ${lines} lines for ${count} events`);
    }
    return { seconds: run.wallMs / 1000, eventsPerSecond: count / (run.wallMs / 1000) };
  } finally {
    await rm(archive, { recursive: true, force: true });
  }
}

export async function fetchOnce(ctx: FigureContext, server: ServerUnderTest, fx: EventFixture): Promise<Measurement> {
  const { wallMs, counts } = await runBaselineTask('fetch-pages', { endpoint: server.endpoint, query: firstQuery(fx.info, 'no filter') }, { cwd: ctx.workDir, timeoutMs: 900_000 });
  if (counts['events'] !== fx.info.count) throw new Error(`baseline fetched ${counts['events']} events of ${fx.info.count}`);
  return { seconds: wallMs / 1000, eventsPerSecond: fx.info.count / (wallMs / 1000) };
}

async function measurePull(ctx: FigureContext): Promise<FigureOutcome> {
  await requireEventsFeed({ pull: true });
  const count = ctx.sizes.events;
  const fx = await eventFixture(ctx, count);
  return withServer(ctx, 'dashcd', fx.dataDir, async (server) => {
    let verified = false;
    const samples = await repeatTasks(ctx, {
      dashcd: async () => {
        const m = await pullOnce(ctx, server, count, !verified);
        verified = true;
        return m;
      },
      fetch: () => fetchOnce(ctx, server, fx),
    });
    const rate = metric(samples.dashcd, 'eventsPerSecond');
    return {
      rows: [
        {
          label: `dashcd events pull of ${count.toLocaleString('en-US')} events into an empty archive`,
          unit: 'events/s',
          better: 'higher',
          value: rate,
          baseline: { label: 'fetching the same pages without writing (own process)', value: metric(samples.fetch, 'eventsPerSecond') },
          goal: { text: `≥ ${MIN_EVENTS_PER_S.toLocaleString('en-US')} events/s`, met: rate.median >= MIN_EVENTS_PER_S },
        },
      ],
      details: { events: count, seconds: metric(samples.dashcd, 'seconds'), measuredAs: 'spawn to exit of `dashcd events pull --since 30d` against a dashcd server process; archive line count checked once' },
    };
  });
}

export const eventsPullFigure: Figure = {
  name: 'events-pull',
  title: 'events pull of 1,000,000 events',
  goal: '≥ 80,000 events/s, durable per page',
  lane: EVENTS_LANE,
  run: measurePull,
};

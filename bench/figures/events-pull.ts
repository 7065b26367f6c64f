import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runBaselineTask, runDashcdOk } from '../lib/cli.js';
import { ratio, type Figure, type FigureContext, type FigureOutcome, type Row } from '../lib/figure.js';
import { startCliServer } from '../lib/cli-server.js';
import type { Sample } from '../lib/stats.js';
import { metric, repeatTasks, type Measurement } from '../lib/repeat.js';
import { withTempDirIn } from '../lib/temp-dir.js';
import type { ServerUnderTest } from '../lib/servers.js';
import { sampleTreeMemory } from '../lib/tree-memory.js';
import { firstQuery } from './event-pages.js';
import { EVENTS_LANE, eventFixture, requireEventsFeed, type EventFixture, type EventShape } from './event-set.js';
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

/** The size of the environment's checkpoint, which the pull rewrites durably as it goes (0 before the first). */
async function checkpointBytes(dir: string): Promise<number> {
  const [env] = await readdir(dir).catch(() => []);
  if (env === undefined) return 0;
  return (await stat(join(dir, env, '_checkpoint.json')).catch(() => ({ size: 0 }))).size;
}

/** Samples `checkpointBytes` while a run goes on; the largest seen is what each rewrite cost at its peak. */
function sampleCheckpointBytes(dir: string, everyMs = 100): { stop(): Promise<number> } {
  let peak = 0;
  let sampling: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(async () => void (peak = Math.max(peak, await checkpointBytes(dir))));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      return Math.max(peak, await checkpointBytes(dir));
    },
  };
}

/**
 * One `dashcd events pull` into an empty archive, with the peak RSS of its process tree and the largest checkpoint
 * it wrote; the first run also checks every event landed exactly once.
 */
export async function pullOnce(ctx: FigureContext, server: ServerUnderTest, count: number, verify: boolean, sinceDays = 30): Promise<Measurement> {
  return withTempDirIn(ctx.workDir, 'archive-', async (archive) => {
    const target = targetArgs(server);
    let memory: ReturnType<typeof sampleTreeMemory> | undefined;
    const checkpoint = sampleCheckpointBytes(archive);
    const run = await runDashcdOk(['events', 'pull', ...target.args, '--archive', archive, '--since', `${sinceDays}d`], {
      cwd: ctx.workDir,
      env: target.env,
      execArgv: ctx.execArgv,
      timeoutMs: 900_000,
      onSpawn: (pid) => (memory = sampleTreeMemory(pid)),
    }).finally(() => memory?.stop());
    const peakRssMb = memory?.stop().peakRssMb ?? Number.NaN;
    const peakCheckpointBytes = await checkpoint.stop();
    if (verify) {
      const lines = await countArchivedLines(archive);
      if (lines !== count) throw new Error(`events pull archived ${lines} lines for ${count} events`);
    }
    return { seconds: run.wallMs / 1000, eventsPerSecond: count / (run.wallMs / 1000), peakRssMb, peakCheckpointBytes };
  });
}

export async function fetchOnce(ctx: FigureContext, server: ServerUnderTest, fx: EventFixture): Promise<Measurement> {
  const { wallMs, counts } = await runBaselineTask('fetch-pages', { endpoint: server.endpoint, query: firstQuery(fx.info, 'no filter') }, { cwd: ctx.workDir, timeoutMs: 900_000 });
  if (counts['events'] !== fx.info.count) throw new Error(`baseline fetched ${counts['events']} events of ${fx.info.count}`);
  return { seconds: wallMs / 1000, eventsPerSecond: fx.info.count / (wallMs / 1000) };
}

/** Pull (checked once) and the pages-only baseline against one server, interleaved. */
async function pullAgainst(ctx: FigureContext, server: ServerUnderTest, fx: EventFixture, sinceDays: number): Promise<Record<'dashcd' | 'fetch', Record<string, Sample>>> {
  let verified = false;
  return repeatTasks(ctx, {
    dashcd: async () => {
      const m = await pullOnce(ctx, server, fx.info.count, !verified, sinceDays);
      verified = true;
      return m;
    },
    fetch: () => fetchOnce(ctx, server, fx),
  });
}

const DAY_MS = 86_400_000;

/**
 * The shapes users' environments differ in. The first is the set every other events figure uses; the second is the
 * issue's goal point (many open events: a noisy week); the third spreads them over more weeks and entities, which
 * is what multiplies the open events a pull must look for again.
 */
const SHAPES: readonly { readonly name: string; readonly shape: Required<EventShape>; readonly ratioGoal?: true }[] = [
  { name: '5 % open, 25 days, 400 entities', shape: { openShare: 0.05, spanMs: 25 * DAY_MS, entityCount: 400 } },
  { name: '40 % open, 25 days, 400 entities', shape: { openShare: 0.4, spanMs: 25 * DAY_MS, entityCount: 400 }, ratioGoal: true },
  { name: '40 % open, 8 weeks, 4,000 entities', shape: { openShare: 0.4, spanMs: 56 * DAY_MS, entityCount: 4000 } },
];

/** At the goal point the pull is at least half as fast as fetching the pages alone. */
const MIN_RATIO = 0.5;

type Point = (typeof SHAPES)[number];

interface PointResult extends Point {
  readonly samples: Record<'dashcd' | 'fetch', Record<string, Sample>>;
}

async function measurePoint(ctx: FigureContext, count: number, point: Point): Promise<PointResult> {
  ctx.progress(`data set: ${point.name}`);
  const fx = await eventFixture(ctx, count, point.shape);
  const sinceDays = Math.ceil(point.shape.spanMs / DAY_MS) + 2;
  const server = await startCliServer(ctx, fx.dataDir, 'DataExport');
  const samples = await pullAgainst(ctx, server, fx, sinceDays).finally(() => server.stop());
  return { ...point, samples };
}

/**
 * The shapes a run measures. A smoke run takes the first two, which run every code path (a shape without the ratio
 * goal and one with it): the third differs from the second in its data only, and cost the smoke six more processes.
 */
const shapesFor = (ctx: FigureContext): readonly Point[] => (ctx.smoke ? SHAPES.slice(0, 2) : SHAPES);

async function measurePull(ctx: FigureContext): Promise<FigureOutcome> {
  await requireEventsFeed({ pull: true });
  const count = ctx.sizes.events;
  const points: PointResult[] = [];
  for (const point of shapesFor(ctx)) points.push(await measurePoint(ctx, count, point));
  const n = count.toLocaleString('en-US');
  const row = ({ name, samples, ratioGoal }: PointResult): Row => {
    const rate = metric(samples.dashcd, 'eventsPerSecond');
    const baseline = metric(samples.fetch, 'eventsPerSecond');
    const met = rate.median >= MIN_EVENTS_PER_S && (!ratioGoal || ratio(rate, baseline) >= MIN_RATIO);
    return {
      label: `dashcd events pull of ${n} events (${name}) into an empty archive, end to end from \`dashcd serve\``,
      unit: 'events/s',
      better: 'higher',
      value: rate,
      baseline: { label: 'fetching the same pages from the same server, parsing, writing nothing (own process)', value: baseline },
      goal: { text: `≥ ${MIN_EVENTS_PER_S.toLocaleString('en-US')} events/s${ratioGoal ? `, ≥ ${MIN_RATIO}× baseline` : ''}`, met, limit: MIN_EVENTS_PER_S },
      note: `peak RSS ${metric(samples.dashcd, 'peakRssMb').median.toFixed(0)} MB (process tree), checkpoint at most ${(metric(samples.dashcd, 'peakCheckpointBytes').median / 1024).toFixed(1)} kB`,
    };
  };
  return {
    rows: points.map(row),
    details: {
      events: count,
      points: points.map(({ name, shape, samples }) => ({
        name,
        shape,
        seconds: metric(samples.dashcd, 'seconds'),
        ratioToFetch: ratio(metric(samples.dashcd, 'eventsPerSecond'), metric(samples.fetch, 'eventsPerSecond')),
        peakRssMb: metric(samples.dashcd, 'peakRssMb'),
        peakCheckpointBytes: metric(samples.dashcd, 'peakCheckpointBytes'),
      })),
      measuredAs:
        'spawn to exit of `dashcd events pull --since <span + 2>d` against `dashcd serve --port 0` with a token from `dashcd token create`; ' +
        'RSS summed over the pull and any process below it, sampled every 50 ms; checkpoint size sampled every 100 ms; archive line count checked once per data set',
    },
  };
}

export const eventsPullFigure: Figure = {
  name: 'events-pull',
  title: 'events pull of 1,000,000 events, at 5 % and 40 % open',
  goal: '≥ 80,000 events/s, durable per page; ≥ 0.5× the pages-only fetch with 40 % open events',
  lane: EVENTS_LANE,
  run: measurePull,
};

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { rawDurableWriteRate } from '../baselines/raw-disk.js';
import { generateDashboard } from '../data/dashboards.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { authHeaders, dashboardsPath, seedDashboards } from '../lib/seed.js';
import { withServer } from '../lib/servers.js';
import { CONNECTIONS } from './get.js';
import { loadMeasurement } from './load-task.js';

const MIN_RPS = 3000;
const MAX_P99_MS = 20;
/** Coprime with the id count, so one id receives a different body each time it comes round. */
const BODY_VARIANTS = 7;

async function measurePut(ctx: FigureContext): Promise<FigureOutcome> {
  const bareDir = join(ctx.workDir, 'bare');
  const rawDir = join(ctx.workDir, 'raw');
  await mkdir(bareDir, { recursive: true });
  await mkdir(rawDir, { recursive: true });
  const bodies = Array.from({ length: BODY_VARIANTS }, (_, i) => JSON.stringify(generateDashboard(ctx.seed + 1, i)));
  return withServer(ctx, 'dashcd', join(ctx.workDir, 'data'), async (dashcd) => {
    ctx.progress(`seeding ${ctx.sizes.dashboards} dashboards (PUTs then replace them: 204s)`);
    const ids = await seedDashboards(dashcd.endpoint, ctx.seed, ctx.sizes.dashboards);
    const paths = ids.map((id) => dashboardsPath(dashcd.endpoint, id));
    return withServer(ctx, 'bare-put', bareDir, async (bare) => {
      const spec = { method: 'PUT' as const, paths, bodies, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [201, 204] };
      const json = { 'content-type': 'application/json' };
      const samples = await repeatTasks(ctx, {
        dashcd: () => loadMeasurement({ ...spec, origin: dashcd.origin, headers: { ...authHeaders(dashcd.endpoint), ...json } }),
        bare: () => loadMeasurement({ ...spec, origin: bare.origin, headers: json }),
        disk: () => rawDurableWriteRate(rawDir, { concurrency: CONNECTIONS, durationMs: ctx.loadDurationMs, files: ids.length, body: bodies[0] ?? '' }),
      });
      const rps = metric(samples.dashcd, 'rps');
      const p99 = metric(samples.dashcd, 'p99');
      const bareLabel = 'bare node:http writing each body durably';
      return {
        rows: [
          { label: `PUT /dashboards/{id} at ${CONNECTIONS} connections, durable`, unit: 'req/s', better: 'higher', value: rps, baseline: { label: bareLabel, value: metric(samples.bare, 'rps') }, goal: { text: `≥ ${MIN_RPS.toLocaleString('en-US')} req/s`, met: rps.median >= MIN_RPS } },
          { label: `PUT p99 latency at ${CONNECTIONS} connections`, unit: 'ms', better: 'lower', value: p99, baseline: { label: bareLabel, value: metric(samples.bare, 'p99') }, goal: { text: `≤ ${MAX_P99_MS} ms`, met: p99.median <= MAX_P99_MS } },
          { label: 'PUT req/s against the disk’s durable write rate', unit: 'req/s', better: 'higher', value: rps, baseline: { label: `raw temp+fsync+rename+fsync(dir), ${CONNECTIONS} writers`, value: metric(samples.disk, 'rps') } },
        ],
        details: { dashboards: ids.length, bodyBytes: bodies.map((b) => b.length), diskP99Ms: metric(samples.disk, 'p99') },
      };
    });
  });
}

export const putFigure: Figure = {
  name: 'put',
  title: 'PUT /dashboards/{id} req/s at 32 connections, durable',
  goal: '≥ 3,000 req/s; p99 ≤ 20 ms',
  run: measurePut,
};

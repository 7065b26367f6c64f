import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { ratio } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { authHeaders, dashboardsPath, fetchBodies, seedDashboards } from '../lib/seed.js';
import { withServer } from '../lib/servers.js';
import { loadMeasurement } from './load-task.js';

export const CONNECTIONS = 32;
const MIN_SHARE = 0.7;
const MAX_P99_MS = 5;

async function measureGet(ctx: FigureContext): Promise<FigureOutcome> {
  return withServer(ctx, 'dashcd', join(ctx.workDir, 'data'), async (dashcd) => {
    ctx.progress(`seeding ${ctx.sizes.dashboards} dashboards`);
    const ids = await seedDashboards(dashcd.endpoint, ctx.seed, ctx.sizes.dashboards);
    const bodies = await fetchBodies(dashcd.endpoint, ids);
    const bytesFile = join(ctx.workDir, 'bodies.json');
    await writeFile(bytesFile, JSON.stringify(bodies));
    const paths = ids.map((id) => dashboardsPath(dashcd.endpoint, id));
    return withServer(ctx, 'bare-get', bytesFile, async (bare) => {
      const spec = { method: 'GET' as const, paths, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [200] };
      const samples = await repeatTasks(ctx, {
        dashcd: () => loadMeasurement(ctx, { ...spec, origin: dashcd.origin, headers: authHeaders(dashcd.endpoint) }, dashcd.pid),
        bare: () => loadMeasurement(ctx, { ...spec, origin: bare.origin, headers: {} }, bare.pid),
      });
      const rps = metric(samples.dashcd, 'rps');
      const bareRps = metric(samples.bare, 'rps');
      const p99 = metric(samples.dashcd, 'p99');
      const baseline = 'bare node:http, same bytes from memory';
      const meanBytes = Object.values(bodies).reduce((n, b) => n + b.length, 0) / Math.max(1, ids.length);
      return {
        rows: [
          { label: `GET /dashboards/{id} at ${CONNECTIONS} connections`, unit: 'req/s', better: 'higher', value: rps, baseline: { label: baseline, value: bareRps }, goal: { text: '≥ 70 % of baseline', met: ratio(rps, bareRps) >= MIN_SHARE } },
          { label: `GET p99 latency at ${CONNECTIONS} connections`, unit: 'ms', better: 'lower', value: p99, baseline: { label: baseline, value: metric(samples.bare, 'p99') }, goal: { text: `≤ ${MAX_P99_MS} ms`, met: p99.median <= MAX_P99_MS, limit: MAX_P99_MS } },
        ],
        details: { loadGenerator: ctx.loadGenerator, serverCpuCores: metric(samples.dashcd, 'serverCpu'), bareServerCpuCores: metric(samples.bare, 'serverCpu'), dashboards: ids.length, meanResponseBytes: Math.round(meanBytes), p50Ms: metric(samples.dashcd, 'p50'), bareP50Ms: metric(samples.bare, 'p50') },
      };
    });
  });
}

export const getFigure: Figure = {
  name: 'get',
  title: 'GET /dashboards/{id} req/s at 32 connections',
  goal: '≥ 70 % of bare node:http; p99 ≤ 5 ms',
  run: measureGet,
};

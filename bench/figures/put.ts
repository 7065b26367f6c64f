import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { rawDurableWriteRate } from '../baselines/raw-disk.js';
import { MAX_JOURNAL_BYTES } from '../../src/server/store/journaled-files.js';
import { generateDashboard } from '../data/dashboards.js';
import { ratio, type Figure, type FigureContext, type FigureOutcome, type Row } from '../lib/figure.js';
import { memoryBackedDir } from '../lib/memory-dir.js';
import { metric, repeatTasks, type Task } from '../lib/repeat.js';
import type { Sample } from '../lib/stats.js';
import { withTempDirIn } from '../lib/temp-dir.js';
import { authHeaders, dashboardsPath, seedDashboards } from '../lib/seed.js';
import { withServer, type ServerUnderTest } from '../lib/servers.js';
import { CONNECTIONS } from './get.js';
import { loadMeasurement } from './load-task.js';

const MIN_RPS = 3000;
const MAX_P99_MS = 20;
/** The relative goal: a journal acknowledging batches must beat a server doing one durable write each. */
const MIN_SHARE_OF_BARE = 1.5;
/** Coprime with the id count, so one id receives a different body each time it comes round. */
const BODY_VARIANTS = 7;


/**
 * Room the server without a disk needs: its journal up to the bound at which writers wait, and as much again for the
 * files and a generation being dropped. A smaller tmpfs would fail its writes (ENOSPC), not measure them.
 */
export const IN_MEMORY_FREE_BYTES = 2 * MAX_JOURNAL_BYTES;

/**
 * A second dashcd server, seeded like the first, with its data dir on tmpfs where the machine has one: its journal
 * commits and file writes never wait for a disk. The same load against it shows what the disk adds to PUT's figures,
 * and what the rest of the machine allows without any disk (`undefined` without a tmpfs: the rows are left out).
 */
async function withInMemoryDashcd<T>(ctx: FigureContext, body: (server: ServerUnderTest | undefined) => Promise<T>): Promise<T> {
  const root = await memoryBackedDir(IN_MEMORY_FREE_BYTES);
  if (root === undefined) return body(undefined);
  return withTempDirIn(root, 'dashcd-bench-put-', (dir) =>
    withServer(ctx, 'dashcd', dir, async (server) => {
      ctx.progress(`seeding ${ctx.sizes.dashboards} dashboards into a second server whose data dir is on tmpfs (${root})`);
      await seedDashboards(server.endpoint, ctx.seed, ctx.sizes.dashboards);
      return body(server);
    }),
  );
}

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
    return withInMemoryDashcd(ctx, (inMemory) => withServer(ctx, 'bare-put', bareDir, async (bare) => withServer(ctx, 'null-put', '', async (ceiling) => {
      const spec = { method: 'PUT' as const, paths, bodies, connections: CONNECTIONS, durationMs: ctx.loadDurationMs, okStatuses: [201, 204] };
      // Every server reads the same requests, token included (the baselines ignore it).
      const headers = { ...authHeaders(dashcd.endpoint), 'content-type': 'application/json' };
      // The journal acknowledges before the files are written: a dashcd task ends once they are, so the files of one
      // run are not written during the next task's run.
      const dashcdTask = (server: ServerUnderTest): Task => async () => {
        const measurement = await loadMeasurement(ctx, { ...spec, paths: ids.map((id) => dashboardsPath(server.endpoint, id)), origin: server.origin, headers: { ...headers, ...authHeaders(server.endpoint) } }, server.pid);
        await server.settled();
        return measurement;
      };
      const tasks: Record<string, Task> = {
        dashcd: dashcdTask(dashcd),
        bare: () => loadMeasurement(ctx, { ...spec, origin: bare.origin, headers }, bare.pid),
        ceiling: () => loadMeasurement(ctx, { ...spec, origin: ceiling.origin, headers }, ceiling.pid),
        disk: () => rawDurableWriteRate(rawDir, { concurrency: CONNECTIONS, durationMs: ctx.loadDurationMs, files: ids.length, body: bodies[0] ?? '' }),
        ...(inMemory && { memory: dashcdTask(inMemory) }),
      };
      const samples = await repeatTasks(ctx, tasks);
      const task = (name: string): Record<string, Sample> => samples[name] ?? {};
      const rps = metric(task('dashcd'), 'rps');
      const bareRps = metric(task('bare'), 'rps');
      const p99 = metric(task('dashcd'), 'p99');
      const rpsMet = rps.median >= MIN_RPS && ratio(rps, bareRps) >= MIN_SHARE_OF_BARE;
      const bareLabel = 'bare node:http writing each body durably';
      const memoryLabel = 'the same dashcd server with its data dir on tmpfs: no disk wait at all';
      const memoryRows: Row[] = inMemory
        ? [
            { label: 'PUT p99 against the same server without a disk', unit: 'ms', better: 'lower', value: p99, baseline: { label: memoryLabel, value: metric(task('memory'), 'p99') } },
            { label: 'PUT req/s against the same server without a disk', unit: 'req/s', better: 'higher', value: rps, baseline: { label: memoryLabel, value: metric(task('memory'), 'rps') } },
          ]
        : [];
      return {
        rows: [
          { label: `PUT /dashboards/{id} at ${CONNECTIONS} connections, durable`, unit: 'req/s', better: 'higher', value: rps, baseline: { label: bareLabel, value: bareRps }, goal: { text: `≥ ${MIN_RPS.toLocaleString('en-US')} req/s and ≥ ${MIN_SHARE_OF_BARE}× baseline`, met: rpsMet } },
          { label: `PUT p99 latency at ${CONNECTIONS} connections`, unit: 'ms', better: 'lower', value: p99, baseline: { label: bareLabel, value: metric(task('bare'), 'p99') }, goal: { text: `≤ ${MAX_P99_MS} ms`, met: p99.median <= MAX_P99_MS, limit: MAX_P99_MS } },
          { label: 'PUT p99 against the disk’s own durable-write p99', unit: 'ms', better: 'lower', value: p99, baseline: { label: `raw temp+fsync+rename+fsync(dir), ${CONNECTIONS} writers`, value: metric(task('disk'), 'p99') } },
          // What the server spends per write, not how busy the machine was: a server that writes twice as fast keeps
          // the machine busier, which is no loss (the machine's share is in the details).
          { label: `PUT /dashboards/{id} per server CPU-second at ${CONNECTIONS} connections`, unit: 'req/s', better: 'higher', value: metric(task('dashcd'), 'perCpuSecond'), baseline: { label: bareLabel, value: metric(task('bare'), 'perCpuSecond') } },
          { label: 'PUT req/s against the machine’s ceiling', unit: 'req/s', better: 'higher', value: rps, baseline: { label: 'bare node:http reading each body and answering 204, nothing kept', value: metric(task('ceiling'), 'rps') } },
          { label: 'PUT req/s against the disk’s durable write rate', unit: 'req/s', better: 'higher', value: rps, baseline: { label: `raw temp+fsync+rename+fsync(dir), ${CONNECTIONS} writers`, value: metric(task('disk'), 'rps') } },
          ...memoryRows,
        ],
        details: { loadGenerator: ctx.loadGenerator, serverCpuCores: metric(task('dashcd'), 'serverCpu'), bareServerCpuCores: metric(task('bare'), 'serverCpu'), machineBusy: metric(task('dashcd'), 'machineBusy'), bareMachineBusy: metric(task('bare'), 'machineBusy'), dashboards: ids.length, bodyBytes: bodies.map((b) => b.length), diskP99Ms: metric(task('disk'), 'p99'), inMemoryDataDir: inMemory?.arg ?? `none: this machine has no tmpfs with ${IN_MEMORY_FREE_BYTES / 2 ** 20} MB free, so the rows against a server without a disk are left out` },
      };
    })));
  });
}

export const putFigure: Figure = {
  name: 'put',
  title: 'PUT /dashboards/{id} req/s at 32 connections, durable',
  goal: '≥ 3,000 req/s and ≥ 1.5× bare durable writes; p99 ≤ 20 ms',
  run: measurePut,
};

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { parse, stringify } from 'yaml';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { writeDashboardSet } from '../data/dashboard-files.js';
import { dashboardId } from '../data/dashboards.js';
import { requireComponent, runDashcdOk } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome, Row } from '../lib/figure.js';
import { startDashcd, type LongProcess } from '../lib/long-process.js';
import { authHeaders, dashboardsPath, endpointParts, type Endpoint } from '../lib/seed.js';
import { summarize, summarizeLatencies } from '../lib/stats.js';

const POLL_MS = 3;
/**
 * How long edits are made and not timed once every dashboard is live, as every figure has its warm-up: saves that
 * soon after start-up meet the start-up's last work (the compacting collections once the pass's files are written,
 * ~1.1 s after it at 1,000 dashboards and ~100-250 ms long; the edit path's first compilations), which one of 100
 * timed edits turns into the p99. Both builds of a --before run get the same.
 */
const WARMUP_MS = 3_000;
const EDIT_TIMEOUT_MS = 10_000;

/** Where a daemon keeps its files (default: the figure's work dir) and what it gets in its environment. */
interface DaemonSetting {
  root?: string;
  env?: Record<string, string>;
}

const DEFAULT_SETTING: DaemonSetting = {};

/**
 * glibc gives each thread that allocates its own malloc arena (up to 8 per core), whose freed pages can stay in the
 * RSS; two arenas is the usual cap for a long-running multi-threaded process. The 10,000-dashboard figure is also
 * measured so, to tell arena fragmentation from the rest of its run-to-run spread.
 */
const TWO_ARENAS: DaemonSetting = { env: { MALLOC_ARENA_MAX: '2' } };

interface RunningDaemon {
  proc: LongProcess;
  endpoint: Endpoint;
  pool: Pool;
}

/** The daemon logs this line (JSON, stdout not a terminal) once its embedded API listens. */
const API_READY = /"api":"(http:[^"]+)"[^\n]*"msg":"embedded API ready"/;

/**
 * `dashcd daemon` serving the embedded API on a free port, reconciling `dir`, archiving into the work dir. The
 * token comes from `dashcd token create` on the same data dir beforehand, as an operator would make one.
 */
async function startDaemon(ctx: FigureContext, dir: string, extra: readonly string[], setting: DaemonSetting = DEFAULT_SETTING): Promise<RunningDaemon> {
  const root = setting.root ?? ctx.workDir;
  const dataDir = join(root, 'data');
  const created = await runDashcdOk(['token', 'create', '--data', dataDir, '--scopes', 'ReadConfig,WriteConfig,DataExport', '--name', 'bench'], { cwd: ctx.workDir });
  const token = created.stdout.trim().split('\n').pop() ?? '';
  const args = ['daemon', '--dir', dir, '--data', dataDir, '--archive', join(root, 'archive'), '--listen', '127.0.0.1:0', '--poll', '1s', ...extra];
  const proc = startDashcd(args, { cwd: ctx.workDir, execArgv: ctx.execArgv, env: { DASHCD_LOG_LEVEL: 'info', ...setting.env } });
  try {
    const [, baseUrl = ''] = await proc.waitFor(API_READY, 60_000);
    const endpoint = { baseUrl, token };
    return { proc, endpoint, pool: new Pool(endpointParts(endpoint).origin, { connections: 2 }) };
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

async function stopDaemon(d: RunningDaemon): Promise<void> {
  await d.pool.close();
  await d.proc.stop();
}

/**
 * The live dashboard, or undefined while it is not there. A connection the daemon closed (a keep-alive socket it
 * timed out while its start-up pass kept it busy) is "not yet" too: the next poll asks again.
 */
async function liveDashboard(d: RunningDaemon, id: string): Promise<{ tiles?: { name?: string }[] } | undefined> {
  const res = await d.pool.request({ path: dashboardsPath(d.endpoint, id), method: 'GET', headers: authHeaders(d.endpoint) }).catch((error: unknown) => {
    if (isConnectionReset(error)) return undefined;
    throw error;
  });
  if (!res) return undefined;
  if (res.statusCode !== 200) {
    await res.body.dump();
    return undefined;
  }
  return (await res.body.json()) as { tiles?: { name?: string }[] };
}

function isConnectionReset(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

/** Waits until the daemon's start-up reconcile has made every dashboard live. */
async function waitAllLive(d: RunningDaemon, ids: readonly string[], timeoutMs: number): Promise<number> {
  const started = performance.now();
  for (const id of [...ids].reverse()) {
    while (!(await liveDashboard(d, id))) {
      if (performance.now() - started > timeoutMs) throw new Error(`dashboard ${id} not live ${timeoutMs} ms after start`);
      await sleep(100);
    }
  }
  return performance.now() - started;
}

/**
 * Time from now until the daemon's first reconcile pass (its start-up pass, a full one) has succeeded, by its
 * `/metrics`. Polling every dashboard instead would time the poll: 10,000 GETs one after another once the last one
 * is live took longer than the pass itself.
 */
async function waitFirstPass(d: RunningDaemon, timeoutMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await d.pool.request({ path: '/metrics', method: 'GET' }).catch((error: unknown) => {
      if (isConnectionReset(error)) return undefined;
      throw error;
    });
    const text = res ? await res.body.text() : '';
    if (/^dashcd_reconciles_total\{[^}]*result="ok"[^}]*\} [1-9]/m.test(text)) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`the daemon's start-up pass did not succeed within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Saves a new first-tile name into the file as an editor would, and times until GET shows it. */
async function timeOneEdit(d: RunningDaemon, file: string, id: string, marker: string): Promise<number> {
  const doc = parse(await readFile(file, 'utf8')) as { tiles: { name: string }[] };
  const first = doc.tiles[0];
  if (first) first.name = marker;
  const text = stringify(doc, { lineWidth: 0 });
  const saved = performance.now();
  await writeFile(file, text);
  for (;;) {
    const live = await liveDashboard(d, id);
    if (live?.tiles?.[0]?.name === marker) return performance.now() - saved;
    if (performance.now() - saved > EDIT_TIMEOUT_MS) throw new Error(`edit ${marker} of ${file} not live after ${EDIT_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}

async function measureLive(ctx: FigureContext): Promise<FigureOutcome> {
  await requireComponent(['daemon'], ['daemon/daemon.js']);
  const count = ctx.sizes.dashboards;
  const dir = join(ctx.workDir, 'dashboards');
  const files = await writeDashboardSet(dir, { seed: ctx.seed, count, pinIds: true });
  const ids = files.map((_, i) => dashboardId(ctx.seed, i));
  const d = await startDaemon(ctx, dir, ['--resync', '10m']);
  try {
    await waitAllLive(d, ids, 300_000);
    const warmUntil = performance.now() + (ctx.smoke ? 0 : WARMUP_MS);
    // `runs` rounds of edits on the one daemon, each its own p50 and p99, the median round's reported. A round is 300
    // edits (~45 s): the p99 of 100 was their second slowest, which one stray pause decided, and the sittings' p99s
    // moved 0.56–1.51× between builds and back; of 300 it is about the fourth slowest, past a single full collection.
    const rounds: number[][] = [];
    let n = 0;
    while (rounds.length < ctx.runs) {
      const latencies: number[] = [];
      while (latencies.length < ctx.sizes.daemonEdits) {
        const i = (n * 37) % count;
        const warming = performance.now() < warmUntil;
        const ms = await timeOneEdit(d, files[i] ?? '', ids[i] ?? '', `edited ${n}`);
        n += 1;
        if (!warming) latencies.push(ms);
        await sleep(50);
      }
      rounds.push(latencies);
    }
    const stats = rounds.map((latencies) => summarizeLatencies(Float64Array.from(latencies)));
    const p50 = summarize(stats.map((s) => s.p50));
    const p99 = summarize(stats.map((s) => s.p99));
    const edits = `${ctx.sizes.daemonEdits} edits (median of ${rounds.length} rounds)`;
    return {
      rows: [
        { label: `file saved → dashboard live, p50 over ${edits}`, unit: 'ms', better: 'lower', value: p50, goal: { text: '≤ 150 ms', met: p50.median <= 150 } },
        { label: `file saved → dashboard live, p99 over ${edits}`, unit: 'ms', better: 'lower', value: p99, goal: { text: '≤ 500 ms', met: p99.median <= 500 } },
      ],
      details: { dashboards: count, edits: ctx.sizes.daemonEdits, rounds: rounds.length, pollMs: POLL_MS, maxMs: Math.max(...stats.map((s) => s.max)), latenciesMs: rounds.map((r) => r.map((l) => Math.round(l))) },
    };
  } finally {
    await stopDaemon(d);
  }
}

async function archivedFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true }).catch(() => []);
  return entries.filter((e) => String(e).endsWith('.jsonl')).length;
}

/** The issue's goals: at the bench's 1,000 dashboards, and at its scale of 10,000. */
const MAX_RSS_MB = 300;
const MAX_RSS_AT_SCALE_MB = 400;

interface RssRun {
  rss: number[];
  everyMs: number;
  peakMb: number;
  reconcileMs: number;
  details: Record<string, unknown>;
}

/**
 * `count` dashboards applied by the daemon's start-up pass (with `--simulate-events` and the poller every 1 s), then
 * RSS sampled while the poller runs, once the embedded store has written the pass's files: its journal acknowledges
 * writes before their files exist, and at 10,000 dashboards the samples taken while it still wrote them (578 MB) said
 * more about those seconds than about the daemon that then runs for days (~350 MB). The peak, burst included, is in
 * the row's note. `reconcileMs`: from the embedded API listening to the start-up pass done (each dashboard is then
 * checked live by GET, untimed).
 */
async function daemonRss(ctx: FigureContext, count: number, setting: DaemonSetting = DEFAULT_SETTING): Promise<RssRun> {
  await requireComponent(['daemon'], ['daemon/daemon.js']);
  const root = setting.root ?? ctx.workDir;
  const dir = join(root, 'dashboards');
  const files = await writeDashboardSet(dir, { seed: ctx.seed, count, pinIds: true });
  const ids = files.map((_, i) => dashboardId(ctx.seed, i));
  const d = await startDaemon(ctx, dir, ['--simulate-events', '--resync', '60s'], setting);
  try {
    const reconcileMs = await waitFirstPass(d, 600_000);
    await waitAllLive(d, ids, 60_000);
    const filesWritten = await waitFilesWritten(dataDirLayout(join(root, 'data')).dashboardsDir(DEFAULT_ENVIRONMENT), count, 120_000);
    const samples = ctx.smoke ? 2 : 5;
    const everyMs = ctx.smoke ? 250 : 3000;
    ctx.progress(`all ${count} dashboards live after ${Math.round(reconcileMs)} ms; sampling RSS ${samples}× every ${everyMs} ms while the poller runs`);
    const rss: number[] = [];
    for (let i = 0; i < samples; i++) {
      await sleep(everyMs);
      rss.push(d.proc.memory().rssMb);
    }
    const peakMb = d.proc.memory().peakRssMb;
    const details = { dashboards: count, startupReconcileMs: Math.round(reconcileMs), filesWrittenMsAfterLive: filesWritten, peakRssMb: peakMb, archiveFiles: await archivedFiles(join(setting.root ?? ctx.workDir, 'archive')), ...(setting.env ? { env: setting.env } : {}) };
    return { rss, everyMs, peakMb, reconcileMs, details };
  } finally {
    await stopDaemon(d);
  }
}

/**
 * Milliseconds until `dir` holds `count` dashboard files, polled; undefined when it still does not after `timeoutMs`
 * (the samples are then taken anyway, and the details say so).
 */
async function waitFilesWritten(dir: string, count: number, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  for (;;) {
    const files = await readdir(dir).catch(() => []);
    if (files.filter((name) => name.endsWith('.json')).length >= count) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs) return undefined;
    await sleep(250);
  }
}

function rssRow(count: number, run: RssRun, maxMb: number, setting: DaemonSetting = DEFAULT_SETTING): Row {
  const value = summarize(run.rss);
  const note = `${run.rss.length} samples, ${run.everyMs / 1000} s apart, once the pass's files were written; peak ${Math.round(run.peakMb)} MB`;
  const env = Object.entries(setting.env ?? {}).map(([name, v]) => `${name}=${v}`).join(' ');
  const label = `daemon RSS with ${count.toLocaleString('en-US')} dashboards and the archive poller${env ? `, ${env}` : ''}`;
  return { label, unit: 'MB', better: 'lower', value, goal: { text: `≤ ${maxMb} MB`, met: value.median <= maxMb }, note };
}

async function measureRss(ctx: FigureContext): Promise<FigureOutcome> {
  const run = await daemonRss(ctx, ctx.sizes.dashboards);
  return { rows: [rssRow(ctx.sizes.dashboards, run, MAX_RSS_MB)], details: run.details };
}

/** The issue's scale: 10,000 dashboards (≤ 400 MB), and how long the start-up pass takes to make them all live. */
async function measureRssAtScale(ctx: FigureContext): Promise<FigureOutcome> {
  const count = ctx.sizes.daemonAtScale;
  const run = await daemonRss(ctx, count);
  const startup = { label: `daemon start-up: all ${count.toLocaleString('en-US')} dashboards live (API listening → start-up pass done)`, unit: 's', better: 'lower' as const, value: summarize([run.reconcileMs / 1000]) };
  const arenas = { ...TWO_ARENAS, root: join(ctx.workDir, 'two-arenas') };
  await mkdir(arenas.root);
  const capped = await daemonRss(ctx, count, arenas);
  return { rows: [rssRow(count, run, MAX_RSS_AT_SCALE_MB), rssRow(count, capped, MAX_RSS_AT_SCALE_MB, arenas), startup], details: { ...run.details, twoArenas: capped.details } };
}

export const daemonLiveFigure: Figure = { name: 'daemon-live', title: 'daemon: file saved → dashboard live, 300 edits a round', goal: 'p50 ≤ 150 ms; p99 ≤ 500 ms', run: measureLive };

export const daemonRssFigure: Figure = { name: 'daemon-rss', title: 'daemon RSS with 1,000 dashboards and the archive poller', goal: '≤ 300 MB', run: measureRss };

export const daemonScaleFigure: Figure = { name: 'daemon-scale', title: 'daemon RSS with 10,000 dashboards and start-up to all live', goal: '≤ 400 MB', run: measureRssAtScale };

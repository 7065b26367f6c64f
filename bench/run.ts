import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mapConcurrent } from '../src/lib/concurrency.js';
import { FIGURES } from './figures/index.js';
import { NotMeasurableYet, type Figure, type FigureContext, type LoadGenerator } from './lib/figure.js';
import { lanes } from './lib/lanes.js';
import { machineInfo, describeMachine } from './lib/machine.js';
import { missingClientOptions, parseBenchOptions, USAGE, type BenchOptions } from './lib/options.js';
import { runCompare } from './lib/compare-runs.js';
import type { BenchResults, FigureResult } from './lib/report.js';
import { mergeResults, writeResults } from './lib/results-file.js';
import { ensureWrk, WRK_THREADS } from './load/wrk.js';

/**
 * wrk for full runs, installing Debian's package when it is missing. The smoke test keeps the undici worker: wrk
 * runs whole seconds only, and the smoke run must stay short and install nothing.
 */
async function chooseLoadGenerator(smoke: boolean): Promise<LoadGenerator> {
  if (smoke) return { kind: 'undici-worker', why: 'smoke run (wrk runs whole seconds only)' };
  const version = await ensureWrk(progress('setup'));
  if (version) return { kind: 'wrk', version: `${version}, ${WRK_THREADS} threads` };
  return { kind: 'undici-worker', why: 'wrk could not be installed' };
}

function progress(figure: string): (message: string) => void {
  return (message) => process.stderr.write(`[bench ${figure}] ${message}\n`);
}

function selectFigures(names: readonly string[]): Figure[] {
  if (names.length === 0) return [...FIGURES];
  const unknown = names.filter((n) => !FIGURES.some((f) => f.name === n));
  if (unknown.length > 0) throw new Error(`unknown figure ${unknown.join(', ')}; known: ${FIGURES.map((f) => f.name).join(', ')}`);
  return FIGURES.filter((f) => names.includes(f.name));
}

type SharedCache = FigureContext['shared'];

function sharedCache(root: string): SharedCache {
  const built = new Map<string, Promise<unknown>>();
  return <T>(key: string, build: (dir: string) => Promise<T>): Promise<T> => {
    let entry = built.get(key);
    if (!entry) {
      const dir = join(root, `shared-${key}`);
      entry = mkdir(dir, { recursive: true }).then(() => build(dir));
      built.set(key, entry);
    }
    return entry as Promise<T>;
  };
}

async function runFigure(figure: Figure, options: BenchOptions, root: string, shared: SharedCache): Promise<FigureResult> {
  const base = { name: figure.name, title: figure.title, goal: figure.goal, takenAt: new Date().toISOString(), commit: options.commit };
  const workDir = await mkdtemp(join(root, `${figure.name}-`));
  const ctx: FigureContext = {
    smoke: options.smoke,
    loadGenerator: options.loadGenerator,
    runs: options.runs,
    warmups: options.warmups,
    loadDurationMs: options.loadDurationMs,
    seed: options.seed,
    sizes: options.sizes,
    workDir,
    execArgv: options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${resolve('bench/results')}`] : [],
    progress: progress(figure.name),
    shared,
  };
  const started = performance.now();
  try {
    const outcome = await figure.run(ctx);
    return { ...base, status: 'measured', durationMs: Math.round(performance.now() - started), ...outcome };
  } catch (error) {
    if (error instanceof NotMeasurableYet) return { ...base, status: 'not-yet-measured', reason: error.message, rows: [] };
    ctx.progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    // The table gets the first line; the full story went to stderr above.
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 300) ?? '';
    return { ...base, status: 'failed', reason, rows: [] };
  } finally {
    if (!options.keep) await rm(workDir, { recursive: true, force: true });
    else ctx.progress(`data kept in ${workDir}`);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseBenchOptions(argv);
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.list) {
    for (const f of FIGURES) process.stdout.write(`${f.name.padEnd(14)} ${f.title} — goal ${f.goal}\n`);
    return 0;
  }
  const selected = selectFigures(options.figures);
  if (options.before !== undefined) {
    const { table, failed } = await runCompare(argv, selected, options.before, options.out, progress('compare'), options.nowFirst);
    process.stdout.write(table);
    return failed ? 1 : 0;
  }
  const machine = machineInfo();
  options.loadGenerator = await chooseLoadGenerator(options.smoke);
  options.commit = `${machine.gitCommit}${machine.gitDirty ? ' (dirty)' : ''}`;
  process.stderr.write(`dashcd bench (${options.smoke ? 'smoke' : 'full'}) on ${describeMachine(machine)}\n`);
  const missing = missingClientOptions(process.execArgv, process.env['NODE_OPTIONS']);
  if (missing.length > 0) {
    process.stderr.write(`warning: this process runs without ${missing.join(' ')} (npm run bench gives them): its collections take time and cores from the servers it times (bench/lib/options.ts)\n`);
  }
  const root = await mkdtemp(join(tmpdir(), 'dashcd-bench-'));
  const figures: FigureResult[] = [];
  const runStartedAt = new Date().toISOString();
  const shared = sharedCache(root);
  try {
    // A smoke run measures nothing worth quoting, so its figures may share the cores: two lanes at a time halve its
    // wall time on the 2-core machines `npm test` runs on. Full runs stay one figure at a time, alone on the machine.
    const byName = new Map<string, FigureResult>();
    await mapConcurrent(lanes(selected), options.smoke ? 2 : 1, async (lane) => {
      for (const figure of lane) byName.set(figure.name, await runFigure(figure, options, root, shared));
    });
    for (const figure of selected) figures.push(byName.get(figure.name) as FigureResult);
  } finally {
    if (!options.keep) await rm(root, { recursive: true, force: true });
  }
  const current: BenchResults = {
    schemaVersion: 1,
    runStartedAt,
    takenAt: new Date().toISOString(),
    mode: options.smoke ? 'smoke' : 'full',
    machine,
    settings: { runs: options.runs, warmups: options.warmups, loadDurationMs: options.loadDurationMs, seed: options.seed, sizes: options.sizes, connections: 32, loadGenerator: options.loadGenerator, benchNodeOptions: process.execArgv },
    figures,
  };
  const merged = await mergeResults(options.out, current, FIGURES.map((f) => f.name));
  process.stdout.write(await writeResults(options.out, merged));
  return figures.some((f) => f.status === 'failed') ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exitCode = 2;
  },
);

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import type { BenchSizes, LoadGenerator } from './figure.js';

export interface BenchOptions {
  figures: string[];
  smoke: boolean;
  out: string;
  runs: number;
  warmups: number;
  loadDurationMs: number;
  seed: number;
  sizes: BenchSizes;
  cpuProf: boolean;
  keep: boolean;
  list: boolean;
  /** `--help`/`-h`: print the usage and run nothing. */
  help: boolean;
  /** `--before COMMIT`: run the figures against that commit's src too, in turn, and compare (bench/lib/compare-runs.ts). */
  before?: string;
  /**
   * `--now-first`: in a compare sitting, today's build takes the first lane's first turn (then the order alternates as
   * always). Without it the old commit's build goes first: the first lane's figures (the events ones) always ran in the same slot.
   */
  nowFirst: boolean;
  /** Filled in by run.ts once it has looked for wrk. */
  loadGenerator: LoadGenerator;
  /** The commit measured (filled in once the machine is described), stamped on every figure. */
  commit: string;
}

/**
 * The bench's own process is the client of the page figures, on the same cores as the server it times, and starts
 * with these options (`npm run bench` gives them, and a compare run each build's bench).
 * - A pool of 1: with Node's 4 platform threads its collections woke helper threads that took the cores from the
 *   server: nearly every page of a pass's slowest 1 % overlapped one, against the bare server as much as against
 *   dashcd (events page p99 5.5 ms for both; started with a pool of 1, 0.36 and 0.22 ms).
 * - The old generation a server starts with (src/server/server-node-options.ts): V8 starts a full collection when
 *   the old generation has less than ~16 MB of room, and a client whose ~10 MB heap had been collected small ran
 *   one every ~100 ms through whole passes (traced: each with its marking steps). Its pages then read p99 2–5 ms and
 *   the bare server's 1.7–2.7, where with room both read under about 1 ms: the lane of a compare sitting that found
 *   its client so (6ad1603's, going first, every time) read its pages 2–5× slower than the other lane. With the
 *   servers' old generation, no full collection ran over the same passes but those forced between them.
 */
export const CLIENT_NODE_OPTIONS: readonly string[] = ['--v8-pool-size=1', ...serverNodeOptions().filter((option) => option.startsWith('--initial-old-space-size='))];

/**
 * The client options this process was not started with, from its command line or NODE_OPTIONS. Each with its value:
 * a smaller old generation than the servers' is as good as none. Not src/cli/relaunch.ts's hasNodeOption, which
 * matches by name on purpose (an operator's own value wins there); and the bench takes no new export from src/ for
 * it, since an older commit's relaunch.ts lacking one would be stubbed and fail every `--before` sitting at start.
 */
export function missingClientOptions(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map(dashedName));
  return CLIENT_NODE_OPTIONS.filter((option) => !given.has(option));
}

/** Node reads `_` as `-` in an option's name (`--v8_pool_size=1`), not in its value. */
function dashedName(option: string): string {
  const equals = option.indexOf('=');
  return equals === -1 ? option.replaceAll('_', '-') : `${option.slice(0, equals).replaceAll('_', '-')}${option.slice(equals)}`;
}

const FULL_SIZES: BenchSizes = {
  dashboards: 1000,
  planCurve: [100, 1000, 10_000, 20_000],
  planAtScale: 10_000,
  events: 1_000_000,
  eventsCurve: [10_000, 100_000, 1_000_000],
  pageSamples: 200,
  baselinePageSamples: 10,
  daemonEdits: 300,
  daemonAtScale: 10_000,
};

/** Tiny sizes so `npm test` exercises every code path of every figure in seconds. */
const SMOKE_SIZES: BenchSizes = {
  dashboards: 4,
  planCurve: [2, 4],
  planAtScale: 4,
  events: 400,
  eventsCurve: [200, 400],
  pageSamples: 2,
  baselinePageSamples: 1,
  daemonEdits: 1,
  daemonAtScale: 8,
};

export const USAGE = `usage: npm run bench -- [figure ...] [--smoke] [--out FILE] [--runs N] [--duration MS] [--cpu-prof] [--keep] [--list] [--before COMMIT] [--now-first] [--help]
  figure      run only these figures (default: all); --list names them
  --smoke     tiny sizes, one run, short load: checks the harness, measures nothing worth quoting
  --out       results file, FILE.json (default bench/results/latest.json; the .md table is written beside it)
  --runs      measured runs per figure (default 5; 3 fits an 18-minute quiet window, with a wider min–max)
  --duration  length of each load run in ms (default 3000)
  --dashboards  dashboards (and documents) the get, put, documents, validate, plan, apply and daemon figures hold (default 1000): a smaller set for a quick look
  --events    events behind the events figures (default 1000000): a smaller set for a quick look
  --plan-curve  dashboard counts of the plan-growth curve (default 100,1000,10000,20000; drop 20000 to save ~4 minutes)
  --cpu-prof  profile the measured processes; .cpuprofile files go to bench/results/
  --keep      keep the generated data sets (their paths are printed)
  --before    also build today's bench over COMMIT's src (a worktree in the temp dir) and run each figure against both
              builds in turn; writes bench/results/compare-<sha>.json and .md (or --out) with both columns and now/before
  --now-first with --before: today's build runs first in the first lane (default: COMMIT's), then the order
              alternates lane by lane as usual; a sitting each way shows what the order alone moves
  --help, -h  print this and run nothing`;

function positiveInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${raw}`);
  return n;
}

/** A comma-separated list of positive integers, ascending. */
function sizeList(raw: string | undefined, name: string, fallback: readonly number[]): readonly number[] {
  if (raw === undefined) return fallback;
  const sizes = raw.split(',').map((part) => positiveInt(part.trim(), name, 0));
  if (sizes.length < 2 || sizes.some((n, i) => i > 0 && n <= (sizes[i - 1] ?? 0))) throw new Error(`--${name} needs two or more ascending counts, got ${raw}`);
  return sizes;
}

const BENCH_OPTIONS = {
  smoke: { type: 'boolean', default: false },
  out: { type: 'string' },
  runs: { type: 'string' },
  duration: { type: 'string' },
  'plan-curve': { type: 'string' },
  events: { type: 'string' },
  dashboards: { type: 'string' },
  'cpu-prof': { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
  list: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  before: { type: 'string' },
  'now-first': { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: BENCH_OPTIONS });
  if (values.before !== undefined && !/^[\w./^~-]+$/.test(values.before)) throw new Error(`--before needs a commit, got ${values.before}`);
  if (values['now-first'] && values.before === undefined) throw new Error('--now-first orders a compare sitting: give --before COMMIT too');
  // Refused before any figure runs: `--out x.md` used to write the JSON to x.md and the table to x.md.md.
  if (values.out !== undefined && !values.out.endsWith('.json')) {
    throw new Error(`--out names the JSON results file (ending in .json; the .md table is written beside it), got ${values.out}`);
  }
  const smoke = values.smoke ?? false;
  return {
    figures: positionals,
    smoke,
    out: values.out ?? (values.before === undefined ? 'bench/results/latest.json' : ''),
    runs: positiveInt(values.runs, 'runs', smoke ? 1 : 5),
    warmups: smoke ? 0 : 1,
    loadDurationMs: positiveInt(values.duration, 'duration', smoke ? 100 : 3000),
    seed: 20_240_601,
    sizes: {
      ...(smoke ? SMOKE_SIZES : FULL_SIZES),
      ...(values['plan-curve'] === undefined ? {} : { planCurve: sizeList(values['plan-curve'], 'plan-curve', []) }),
      ...(values.events === undefined ? {} : { events: positiveInt(values.events, 'events', 0) }),
      ...(values.dashboards === undefined ? {} : { dashboards: positiveInt(values.dashboards, 'dashboards', 0) }),
    },
    cpuProf: values['cpu-prof'] ?? false,
    keep: values.keep ?? false,
    list: values.list ?? false,
    help: values.help ?? false,
    ...(values.before === undefined ? {} : { before: values.before }),
    nowFirst: values['now-first'] ?? false,
    loadGenerator: { kind: 'undici-worker', why: 'not chosen yet' },
    commit: 'unknown',
  };
}

/** Options that name what to run and where to write it: a compare run sets them per build and per lane. */
const PER_BUILD = new Set(['before', 'out', 'now-first']);

/**
 * The command line of one build's run in a compare sitting: every option as given (sizes, runs, smoke…), without
 * the figures, `--before`, `--out` and `--now-first`, which the compare run sets or uses itself.
 */
export function buildArgv(argv: readonly string[]): string[] {
  const { tokens } = parseArgs({ args: [...argv], allowPositionals: true, options: BENCH_OPTIONS, tokens: true });
  const kept: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option' || PER_BUILD.has(token.name)) continue;
    kept.push(token.rawName);
    if (token.value !== undefined) kept.push(token.value);
  }
  return kept;
}

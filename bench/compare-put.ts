import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { serverNodeOptions } from '../src/server/server-node-options.js';
import { generateDashboard } from './data/dashboards.js';
import { forkChild, type ChildHandle } from './lib/child.js';
import { authHeaders, dashboardsPath, seedDashboards, type Endpoint } from './lib/seed.js';
import { summarize } from './lib/stats.js';
import { runLoad, type LoadResult, type LoadSpec } from './load/run-load.js';
import { ensureWrk, runWrk } from './load/wrk.js';

const USAGE = `usage: node dist-bench/bench/compare-put.js [--rounds N] [--seconds S] [--dashboards N] [--smoke] <dist-bench dir> <dist-bench dir> [...]

Compares PUT under load between builds of the bench (each a compiled dist-bench/ directory, e.g. one built in a
git worktree of another commit): each build's server child is started once and seeded with 1,000 dashboards, then
after one warm-up run each, wrk runs alternate between them (A B, B A, …), each run followed by that server
writing its journalled files, so one build's leftover work never lands in another's run. On a machine whose disk
changes speed from minute to minute, only builds measured in the same minutes can be told apart; two copies of one
build show the noise. Without wrk (and no way to install it) the bench's undici generator is used, and said so.

  --rounds      measured runs per build (default 8)
  --seconds     length of each run (default 5)
  --dashboards  dashboards seeded per build and PUT in turn (default 1000)
  --smoke       the undici generator, 20 dashboards, one 300 ms run: checks the tool, measures nothing

Exit codes: 0 compared; 64 a usage error (said on stderr); 1 a server or a run failed.`;

const BODY_VARIANTS = 7;
const SEED = 1;

interface Build {
  readonly dir: string;
  readonly child: ChildHandle;
  readonly endpoint: Endpoint;
  readonly ids: readonly string[];
  readonly runs: Array<{ rps: number; p50: number; p99: number }>;
}

async function startBuild(dir: string, dataDir: string, dashboards: number): Promise<Build> {
  // With the Node options `dashcd serve` runs with (those of the comparing build).
  const child = await forkChild(pathToFileURL(serverChild(dir)), ['dashcd', dataDir], { execArgv: serverNodeOptions() });
  const endpoint = { baseUrl: String(child.ready['url']), token: String(child.ready['token']) };
  const ids = await seedDashboards(endpoint, SEED, dashboards);
  return { dir, child, endpoint, ids, runs: [] };
}

type Generator = (spec: LoadSpec) => Promise<LoadResult>;

/** One run against `build`; kept in its runs unless it is the warm-up. */
async function measure(build: Build, load: Generator, durationMs: number, bodies: readonly string[], keep: boolean): Promise<string> {
  const result = await load({
    method: 'PUT',
    paths: build.ids.map((id) => dashboardsPath(build.endpoint, id)),
    bodies,
    connections: 32,
    durationMs,
    okStatuses: [201, 204],
    origin: new URL(build.endpoint.baseUrl).origin,
    headers: { ...authHeaders(build.endpoint), 'content-type': 'application/json' },
  });
  await build.child.settled();
  if (result.errors > 0) throw new Error(`${build.dir}: ${result.errors} of ${result.requests} requests failed`);
  if (keep) build.runs.push({ rps: result.rps, p50: result.latencyMs.p50, p99: result.latencyMs.p99 });
  return `${build.dir}: ${result.rps.toFixed(0)} req/s, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms`;
}

interface Options {
  readonly builds: readonly string[];
  readonly rounds: number;
  readonly seconds: number;
  readonly dashboards: number;
  readonly smoke: boolean;
}

const serverChild = (dir: string): string => join(resolve(dir), 'bench/children/server-child.js');

/** The options, 'help', or what is wrong with the command line. */
function parseOptions(argv: readonly string[]): Options | 'help' | { problem: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        rounds: { type: 'string', default: '8' },
        seconds: { type: 'string', default: '5' },
        dashboards: { type: 'string', default: '1000' },
        smoke: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [rounds, seconds, dashboards] = [values.rounds, values.seconds, values.dashboards].map(Number) as [number, number, number];
  const bad = Object.entries({ rounds, seconds, dashboards }).find(([, n]) => !Number.isInteger(n) || n < 1);
  if (bad) return { problem: `--${bad[0]} must be a whole number of at least 1` };
  if (positionals.length < 2) return { problem: 'name two or more dist-bench directories to compare' };
  const missing = positionals.find((dir) => !existsSync(serverChild(dir)));
  if (missing !== undefined) return { problem: `${missing} is not a compiled bench (no ${serverChild(missing)}; run npx tsc -p tsconfig.bench.json there)` };
  return { builds: positionals, rounds, seconds, dashboards, smoke: values.smoke };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  if ('problem' in options) {
    console.error(`compare-put: ${options.problem}\n\n${USAGE}`);
    process.exitCode = 64;
    return;
  }
  const { rounds, seconds, dashboards } = options;
  const work = await mkdtemp(join(tmpdir(), 'dashcd-compare-put-'));
  const builds: Build[] = [];
  try {
    const wrk = options.smoke ? undefined : await ensureWrk((message) => console.log(message));
    console.log(`load generator: ${wrk ?? 'the undici worker'}`);
    const load: Generator = wrk ? runWrk : runLoad;
    const [runs, durationMs, count] = options.smoke ? [1, 300, 20] : [rounds, seconds * 1000, dashboards];
    for (const [i, dir] of options.builds.entries()) builds.push(await startBuild(dir, join(work, `data-${i}`), count));
    const bodies = Array.from({ length: BODY_VARIANTS }, (_, i) => JSON.stringify(generateDashboard(SEED + 1, i)));
    for (const build of builds) console.log(`warm-up: ${await measure(build, load, durationMs, bodies, false)}`);
    for (let round = 0; round < runs; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) console.log(`round ${round + 1}: ${await measure(build, load, durationMs, bodies, true)}`);
    }
    for (const { dir, runs } of builds) {
      const of = (key: 'rps' | 'p50' | 'p99'): number => summarize(runs.map((run) => run[key])).median;
      console.log(`${dir}: median ${of('rps').toFixed(0)} req/s, p50 ${of('p50').toFixed(2)} ms, p99 ${of('p99').toFixed(2)} ms over ${runs.length} runs`);
    }
  } finally {
    for (const build of builds) await build.child.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

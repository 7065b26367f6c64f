import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { prepareBefore } from './before-build.js';
import { renderCompare, type CompareResults } from './compare-report.js';
import type { Figure } from './figure.js';
import { lanes } from './lanes.js';
import { buildArgv, CLIENT_NODE_OPTIONS } from './options.js';
import type { BenchResults } from './report.js';

interface Build {
  side: 'before' | 'now';
  /** The root the build's `dist-bench/` is under; its figures run from there. */
  dir: string;
  /** Its results file for this sitting: each lane's run adds its figures to it. */
  out: string;
}

/** One build's run of some figures: its own compiled `run.js`, from its own root. Exit 1 is a failed figure. */
function runBuild(build: Build, figures: readonly string[], args: readonly string[], progress: (m: string) => void): Promise<void> {
  progress(`${figures.join(' ')} on ${build.side} (${build.dir})`);
  const child = spawn(process.execPath, [...CLIENT_NODE_OPTIONS, join(build.dir, 'dist-bench', 'bench', 'run.js'), ...figures, ...args, '--out', build.out], {
    cwd: build.dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0 || code === 1) resolve();
      else reject(new Error(`the ${build.side} build's bench exited ${signal ?? String(code)} on ${figures.join(' ')}`));
    });
  });
}

const readResults = async (path: string): Promise<BenchResults> => JSON.parse(await readFile(path, 'utf8')) as BenchResults;

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/**
 * Which build takes lane `index`'s first turn: the old commit's in the first lane unless `nowFirst`, then the other
 * one lane by lane. A slot can favour a build by itself: before the bench's client had the servers' old generation
 * (CLIENT_NODE_OPTIONS), the events lane found it collecting continuously whenever 6ad1603's build went first.
 */
export function laneFirst(index: number, nowFirst: boolean): 'before' | 'now' {
  return (index % 2 === 0) !== nowFirst ? 'before' : 'now';
}

/**
 * `npm run bench -- --before <commit> [figures…]`: builds today's bench over the commit's `src/` (before-build.ts),
 * then runs each lane of figures against both builds, one after the other in one sitting, which build goes first
 * alternating from lane to lane (A B, B A, …; see laneFirst) so drift over the sitting falls on both. Within a figure each build
 * interleaves its own figure and baseline runs as always. Writes `bench/results/compare-<sha>.json` and `.md`
 * (or `--out`) and returns the table, and whether a figure failed on today's build (a run's exit 1).
 */
export async function runCompare(argv: readonly string[], selected: readonly Figure[], commit: string, out: string, progress: (m: string) => void, nowFirst = false): Promise<{ table: string; failed: boolean }> {
  const repo = process.cwd();
  const before = await prepareBefore(repo, commit, progress);
  const scratch = await mkdtemp(join(tmpdir(), 'dashcd-bench-compare-'));
  try {
    const builds: Record<Build['side'], Build> = {
      before: { side: 'before', dir: before.dir, out: join(scratch, 'before.json') },
      now: { side: 'now', dir: repo, out: join(scratch, 'now.json') },
    };
    const args = buildArgv(argv);
    const order: CompareResults['order'] = [];
    for (const [i, lane] of lanes(selected).entries()) {
      const figures = lane.map((f) => f.name);
      const first = laneFirst(i, nowFirst);
      for (const side of first === 'before' ? (['before', 'now'] as const) : (['now', 'before'] as const)) await runBuild(builds[side], figures, args, progress);
      order.push({ figures, first });
    }
    const now = await readResults(builds.now.out);
    const results: CompareResults = {
      schemaVersion: 1,
      takenAt: new Date().toISOString(),
      before: { commit: before.short, shims: before.shims, results: await readResults(builds.before.out) },
      now: { commit: `${now.machine.gitCommit}${now.machine.gitDirty ? ' (dirty)' : ''}`, results: now },
      order,
    };
    const path = out === '' ? join(repo, 'bench', 'results', `compare-${before.short}.json`) : out;
    const table = renderCompare(results);
    await writeAtomically(path, `${JSON.stringify(results, null, 2)}\n`);
    await writeAtomically(`${path.replace(/\.json$/, '')}.md`, table);
    return { table, failed: now.figures.some((f) => f.status === 'failed') };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

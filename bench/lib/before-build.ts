import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { planShims, type ShimFile, type Tree } from './before-shims.js';

const run = promisify(execFile);

export interface BeforeBuild {
  /** Root of the worktree: the build's `dist-bench/bench/run.js` is under it, and its figures run from it. */
  dir: string;
  /** The commit, full and short. */
  sha: string;
  short: string;
  /** One line per shim applied (before-shims.ts), for the report. */
  shims: string[];
}

async function git(cwd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run('git', [...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** A tree on disk, read by repository-relative path. */
function diskTree(root: string): Tree {
  return {
    read: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined),
    list: (dir) => {
      if (!existsSync(join(root, dir))) return [];
      return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .map((f) => posix.join(dir, f.split('\\').join('/')))
        .filter((f) => f.endsWith('.ts') && statSync(join(root, f)).isFile());
    },
  };
}

/**
 * The worktree of `sha` outside the repository (one per commit, reused): checked out afresh each time, so nothing
 * of an earlier overlay or shim stays; `node_modules` and `dist-bench` (ignored files) are kept between runs.
 */
async function worktree(repo: string, sha: string, short: string, progress: (m: string) => void): Promise<string> {
  const dir = join(tmpdir(), `dashcd-bench-before-${short}`);
  const listed = await git(repo, ['worktree', 'list', '--porcelain']);
  if (!listed.split('\n').includes(`worktree ${dir}`)) {
    if (existsSync(dir)) throw new Error(`${dir} exists but is not a worktree of this repository: remove it`);
    progress(`git worktree add ${dir} ${short}`);
    await git(repo, ['worktree', 'add', '--detach', dir, sha]);
  }
  await git(dir, ['checkout', '--force', '--detach', sha]);
  await git(dir, ['clean', '-fdq']);
  return dir;
}

/** `npm ci` from the local cache when it can (no network needed for a commit whose packages were installed once). */
async function install(dir: string, progress: (m: string) => void): Promise<void> {
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  const stamp = join(dir, 'node_modules', '.dashcd-bench-lock');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return;
  const args = ['ci', '--no-audit', '--no-fund', '--ignore-scripts'];
  progress(`npm ${args.join(' ')} in ${dir}`);
  try {
    await run('npm', [...args, '--offline'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  } catch {
    progress('not all packages are in the local npm cache: installing from the registry');
    await run('npm', args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  }
  await writeFile(stamp, lock);
}

/** Today's bench harness as the working tree has it (tracked and new files, results excepted). */
async function benchFiles(repo: string): Promise<ShimFile[]> {
  const paths = (await git(repo, ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'bench', 'tsconfig.bench.json'])).split('\n');
  return paths.filter((p) => p !== '' && !p.startsWith('bench/results/') && existsSync(join(repo, p))).map((path) => ({ path, content: readFileSync(join(repo, path), 'utf8') }));
}

async function writeFiles(root: string, files: readonly ShimFile[]): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(root, file.path)), { recursive: true });
    await writeFile(join(root, file.path), file.content);
  }
}

/**
 * A commit that ships its CLI bundled (scripts/bundle.mjs) is measured as its users run it: its own bundler over
 * the build, as `npm run bench` does today. Older commits ran their compiled modules, and so does their figure.
 */
async function bundleIfBundled(dir: string, progress: (m: string) => void): Promise<void> {
  const bundler = join(dir, 'scripts', 'bundle.mjs');
  if (!existsSync(bundler)) return;
  progress(`bundling the CLI in ${dir}`);
  await run(process.execPath, [bundler, 'dist-bench/src', 'dist-bench/bundle'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * Today's bench compiled with `commit`'s `src/`: the worktree, its packages, today's `bench/` and
 * `tsconfig.bench.json` over it, the shims the old tree needs, then `tsc -p tsconfig.bench.json`. A type error
 * fails the build: the shims are meant to leave none, and one left means a shim to add.
 */
export async function prepareBefore(repo: string, commit: string, progress: (m: string) => void): Promise<BeforeBuild> {
  const sha = await git(repo, ['rev-parse', '--verify', '--end-of-options', `${commit}^{commit}`]).catch(() => {
    throw new Error(`--before ${commit}: not a commit of this repository`);
  });
  const short = sha.slice(0, 7);
  const dir = await worktree(repo, sha, short, progress);
  await install(dir, progress);
  await rm(join(dir, 'bench'), { recursive: true, force: true });
  const plan = planShims(await benchFiles(repo), diskTree(repo), diskTree(dir), short);
  await writeFiles(dir, plan.bench);
  await writeFiles(dir, plan.src);
  for (const line of plan.applied) progress(`shim: ${line}`);
  progress(`tsc -p tsconfig.bench.json in ${dir}`);
  await rm(join(dir, 'dist-bench'), { recursive: true, force: true });
  try {
    await run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bench.json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const out = (error as { stdout?: string }).stdout ?? String(error);
    throw new Error(`today's bench does not compile against ${short} with its shims (add one to bench/lib/before-shims.ts):\n${out}`);
  }
  await bundleIfBundled(dir, progress);
  return { dir, sha, short, shims: plan.applied };
}

import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Test git runs see no user or system config, and commit as a fixed person. */
export const TEST_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Dana Dashboard',
  GIT_AUTHOR_EMAIL: 'dana@example.com',
  GIT_COMMITTER_NAME: 'Dana Dashboard',
  GIT_COMMITTER_EMAIL: 'dana@example.com',
};

export function git(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...TEST_GIT_ENV, ...env }, encoding: 'utf8' }, (error, stdout, stderr) =>
      error ? reject(new Error(`git ${args.join(' ')} failed: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** A bare repository (`remote`) and a work clone that commits and pushes to it, as a developer would. */
export interface GitRemote {
  /** The bare repository's folder (what `git http-backend` and file:// serve). */
  readonly bareDir: string;
  /** `file:///…/dashboards.git` */
  readonly fileUrl: string;
  /** The folder holding the bare repository: a `GIT_PROJECT_ROOT` for the http server. */
  readonly projectRoot: string;
  /** Writes (string) or deletes (null) files in the work clone and commits them; returns the full sha. */
  commit(files: Record<string, string | null>, message: string): Promise<string>;
  /**
   * Commits files straight into the index, names no file system takes (over 255 bytes) included: what a crafted
   * repository can hold. Returns the full sha.
   */
  commitIndexed(files: Record<string, string>, message: string): Promise<string>;
  /** Pushes HEAD to `branch` (forced: a history rewrite is allowed). */
  push(branch?: string): Promise<void>;
  /** Moves the work clone's HEAD back to `commit` (before a force-push). */
  resetTo(commit: string): Promise<void>;
  /** An annotated tag on HEAD, pushed. */
  pushTag(name: string): Promise<void>;
  deleteBranch(branch: string): Promise<void>;
}

export async function createGitRemote(dir: string): Promise<GitRemote> {
  const projectRoot = join(dir, 'remote');
  const bareDir = join(projectRoot, 'dashboards.git');
  const work = join(dir, 'work');
  await mkdir(bareDir, { recursive: true });
  await mkdir(work, { recursive: true });
  await git(bareDir, ['init', '--quiet', '--bare', '--initial-branch', 'main']);
  await git(work, ['init', '--quiet', '--initial-branch', 'main']);
  return {
    bareDir,
    projectRoot,
    fileUrl: pathToFileURL(bareDir).href,
    async commit(files, message) {
      for (const [file, text] of Object.entries(files)) {
        const path = join(work, file);
        if (text === null) await rm(path, { force: true });
        else {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, text);
        }
      }
      await git(work, ['add', '--all']);
      await git(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
      return git(work, ['rev-parse', 'HEAD']);
    },
    async commitIndexed(files, message) {
      for (const [path, text] of Object.entries(files)) {
        const blob = join(dir, 'indexed-blob');
        await writeFile(blob, text);
        const oid = (await git(work, ['hash-object', '-w', blob])).trim();
        await git(work, ['update-index', '--add', '--cacheinfo', `100644,${oid},${path}`]);
      }
      await git(work, ['commit', '--quiet', '-m', message]);
      return git(work, ['rev-parse', 'HEAD']);
    },
    push: (branch = 'main') => git(work, ['push', '--quiet', '--force', bareDir, `HEAD:refs/heads/${branch}`]).then(() => undefined),
    resetTo: (commit) => git(work, ['reset', '--quiet', '--hard', commit]).then(() => undefined),
    async pushTag(name) {
      await git(work, ['tag', '-a', '-m', name, name]);
      await git(work, ['push', '--quiet', bareDir, `refs/tags/${name}`]);
    },
    deleteBranch: (branch) => git(work, ['push', '--quiet', bareDir, `:refs/heads/${branch}`]).then(() => undefined),
  };
}

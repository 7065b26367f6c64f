import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { PROJECT_CONFIG_FILES } from '../schema/project-config-files.js';
import { gitWorkTreeRoot } from '../desired/git-info.js';

/**
 * The dashboards folder that plan and validate read and that `dir` lies in, so pull can find a dashboard that is
 * already managed anywhere in it (`pull --dir dashboards/imported` must not copy what `dashboards/` holds). In order:
 * the nearest folder at or above `dir` that has `dashcd.yaml` next to it (as plan reads it); `dashboards/` in `cwd`
 * or at the git work tree root, when `dir` is inside it (plan's default `--dir`); else `dir` itself. The walk stops
 * at the work tree root, so a stray `dashcd.yaml` above a repository is never taken (outside git: at the top).
 */
export async function findDashboardsRoot(dir: string, cwd: string): Promise<string> {
  const gitRoot = await workTreeRootOf(dir);
  const boundary = gitRoot ?? parse(dir).root;
  for (let folder = dir; folder !== boundary && isWithin(folder, boundary); folder = dirname(folder)) {
    if (await hasProjectConfig(dirname(folder))) return folder;
  }
  for (const base of [cwd, gitRoot]) {
    const defaultFolder = base === undefined ? undefined : join(base, 'dashboards');
    if (defaultFolder !== undefined && isWithin(dir, defaultFolder)) return defaultFolder;
  }
  return dir;
}

/**
 * The dashboards root when no `--dir` and no paths are given, so every working directory of one project reads the
 * same folder (and derives the same ids): `dashboards/` in `cwd`; else, walking up from `cwd` (not above the git
 * work tree root, as findDashboardsRoot), the first folder with `dashcd.yaml` gives `dashboards/` next to it (or, when there is no such
 * folder, its child that holds `cwd`); else `dashboards/` at the git work tree root; else `dashboards/` in `cwd`
 * (which the loader then reports as missing).
 */
export async function defaultDashboardsRoot(cwd: string): Promise<string> {
  const here = join(cwd, 'dashboards');
  if (await isDirectory(here)) return here;
  const gitRoot = await workTreeRootOf(cwd);
  const boundary = gitRoot ?? parse(cwd).root;
  for (let folder = cwd; isWithin(folder, boundary); folder = dirname(folder)) {
    if (await hasProjectConfig(folder)) {
      const named = join(folder, 'dashboards');
      return (await isDirectory(named)) || folder === cwd ? named : join(folder, relative(folder, cwd).split(sep)[0] as string);
    }
    if (folder === boundary) break;
  }
  const atGitRoot = gitRoot === undefined ? undefined : join(gitRoot, 'dashboards');
  return atGitRoot !== undefined && (await isDirectory(atGitRoot)) ? atGitRoot : here;
}

/**
 * The dashboards root a command works on: `--dir`'s (findDashboardsRoot), or without one the default plan and apply
 * read, so every command run in one place agrees on the project, its `dashcd.yaml` and its environments (pull and
 * trash once took the default through findDashboardsRoot, which, in a project's `dashboards/` below another
 * project's `dashcd.yaml`, took the outer one).
 */
export async function dashboardsRootFor(given: string | undefined, cwd: string): Promise<string> {
  return given === undefined ? defaultDashboardsRoot(cwd) : findDashboardsRoot(resolve(cwd, given), cwd);
}

/** Whether `path` is `folder` or below it. */
export function isWithin(path: string, folder: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function hasProjectConfig(folder: string): Promise<boolean> {
  for (const name of PROJECT_CONFIG_FILES) if (await isFile(join(folder, name))) return true;
  return false;
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The git work tree root above `dir`, spelt as an ancestor of `dir` (git answers with the real path). */
export async function workTreeRootOf(dir: string): Promise<string | undefined> {
  const existing = await nearestExisting(dir);
  const top = await gitWorkTreeRoot(existing);
  if (top === undefined) return undefined;
  const rel = relative(top, await realpath(existing));
  // The operator's GIT_DIR/GIT_WORK_TREE can name a work tree that does not hold `dir`: none above it, then.
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  let root = existing;
  for (const part of rel.split(sep)) if (part !== '') root = dirname(root);
  return root;
}

/** `dir` or its nearest ancestor that exists: git needs an existing folder to run in, and pull creates `dir` later. */
async function nearestExisting(dir: string): Promise<string> {
  let folder = dir;
  while (!(await isDirectory(folder)) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

import { resolve } from 'node:path';
import { isStrict, loadProjectConfigFor, type LoadProjectConfigResult, type ProjectConfig } from '../config/project-config.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { readGitInfo, type GitInfo } from '../desired/git-info.js';
import { loadDesired, type DesiredCache, type DesiredDashboard, type DesiredResult } from '../desired/load-desired.js';
import { strictly } from '../desired/strict.js';
import { declaredEnvironments, type Environment } from '../environments/environment.js';
import { loadEnvironments } from './load-environments.js';
import { shownPath } from '../lib/shown-path.js';

/**
 * The desired state a plan starts from: dashcd.yaml, the commit it was read at, and the dashboards — the folder's
 * files as they are (one target), or one environment's rendering of them — already held to strictness.
 */
export interface DesiredState {
  project: { config: ProjectConfig; diagnostics: readonly Diagnostic[] };
  desired: DesiredResult;
  git: GitInfo | undefined;
}

/** Where a run's desired state is read from, and how strictly. */
export interface DesiredSource {
  /** The dashboards folder, relative to `cwd` or absolute. */
  dir: string;
  cwd: string;
  /** The commit being read: see {@link CommitSource}. */
  git?: CommitSource | undefined;
  /** `--strict`; `strict: true` in dashcd.yaml has the same effect. */
  strict?: boolean | undefined;
}

/** Read, or why nothing can be planned from it (`desired`: what was read before that was known). */
export type DesiredStateRead = { kind: 'loaded'; state: DesiredState } | { kind: 'invalid'; diagnostics: Diagnostic[]; desired?: DesiredResult };

/**
 * Where a desired state's commit comes from: git, asked here (undefined, the default); the caller, who knows it (a
 * checkout of a followed repository has no `.git`); or nobody (`'unread'`): the caller reads it itself once its writes
 * are made. The daemon does: each git process is forked from the daemon's whole address space, ~8-17 ms of its one
 * thread per process (three in a work tree) on the way from a saved file to its dashboard live.
 */
export type CommitSource = GitInfo | 'unread';

function commitOf(source: DesiredSource, root: string): GitInfo | undefined | Promise<GitInfo | undefined> {
  if (source.git === 'unread') return undefined;
  return source.git ?? readGitInfo(root);
}

function heldTo(desired: DesiredResult, strict: boolean): DesiredResult {
  return strict ? strictly(desired) : desired;
}

/** dashcd.yaml and the commit: what every desired state starts from. */
async function readProject(source: DesiredSource): Promise<{ root: string; project: LoadProjectConfigResult; git: GitInfo | undefined }> {
  const root = resolve(source.cwd, source.dir);
  const [project, git] = await Promise.all([loadProjectConfigFor(root, source.cwd), commitOf(source, root)]);
  return { root, project, git };
}

/** Hears of a valid project's files as each is checked, before the rest are (early-plans.ts reads live meanwhile). */
export interface CheckedFiles {
  /** The project is valid: its files are about to be checked, under its config. */
  begin(config: ProjectConfig): void;
  /** A file was checked: its dashboard, or undefined when it is invalid (strictness included). */
  checked(dashboard: DesiredDashboard | undefined): void;
}

/**
 * The folder's files as they are, for one target. Impure: it reads dashcd.yaml, git and the folder. With a valid
 * dashcd.yaml, `files` hears of each file as soon as it is checked.
 */
export async function loadFolderState(
  source: DesiredSource,
  load: { only?: readonly string[] | undefined; cache?: DesiredCache | undefined; workers?: number | undefined; files?: CheckedFiles | undefined },
): Promise<DesiredStateRead> {
  const { root, project, git } = await readProject(source);
  // One target for files with templates would write `${{ values.x }}` literally: environments need their own loops.
  if (declaredEnvironments(project.config).length > 0) return { kind: 'invalid', diagnostics: [environmentsDeclared(project.file ?? root, source.cwd)] };
  const strict = isStrict(source.strict, project.config);
  const files = project.diagnostics.length === 0 ? load.files : undefined;
  files?.begin(project.config);
  const loaded = await loadDesired({
    dir: root,
    cwd: source.cwd,
    ...(load.only ? { only: [...load.only] } : {}),
    ...(load.cache ? { cache: load.cache } : {}),
    ...(load.workers !== undefined ? { workers: load.workers } : {}),
    ...(files ? { onFileChecked: ({ dashboard, warned }) => files.checked(strict && warned ? undefined : dashboard) } : {}),
  });
  return { kind: 'loaded', state: { project, desired: heldTo(loaded, strict), git } };
}

/**
 * One environment's desired state: dashcd.yaml read again (its values may have changed), every file read (for
 * references between them) and resolved for the environment; `only` limits the dashboards to those files. A
 * problem a value of the environment causes (`valueAtFault`) makes the state invalid, whatever else is tolerated:
 * half an environment rendered with a wrong value is worse than the last good state. A file's own mistake is the
 * file's, as without environments: skipped when tolerated, the rest applied (it stopped the whole environment,
 * drift repair included, while /status counted no drift).
 */
export async function loadEnvironmentState(source: DesiredSource, name: string, only?: readonly string[]): Promise<DesiredStateRead> {
  const { root, project, git } = await readProject(source);
  if (project.diagnostics.length > 0) return { kind: 'invalid', diagnostics: project.diagnostics };
  const declared = declaredEnvironments(project.config);
  const environment = declared.find((e) => e.name === name);
  if (!environment) {
    const message = `environment ${name} is no longer declared in dashcd.yaml; nothing was written to it (restart the daemon to stop reconciling it)`;
    return { kind: 'invalid', diagnostics: [{ file: project.file ? shownPath(source.cwd, project.file) : 'dashcd.yaml', line: 0, col: 0, path: 'environments', message, env: name }] };
  }
  const selected = only?.map((file) => resolve(source.cwd, file));
  const load = await loadEnvironments({ root, cwd: source.cwd, ...(selected ? { only: selected } : {}), project, declared, selected: [environment] });
  const loaded = load.environments[0]?.desired ?? { dashboards: [], diagnostics: [], warnings: [], files: 0 };
  const desired = heldTo(loaded, isStrict(source.strict, project.config));
  if (desired.diagnostics.some((d) => d.valueAtFault !== undefined)) return { kind: 'invalid', diagnostics: desired.diagnostics, desired };
  return { kind: 'loaded', state: { project, desired, git } };
}

/**
 * The chosen environments' desired states at once (the CLI's `--env`): the files read once and resolved for each,
 * with the project already read and checked by the caller. `warnings`: values no dashboard uses.
 */
export async function loadEnvironmentStates(
  source: DesiredSource & { only?: readonly string[] | undefined },
  environments: { project: LoadProjectConfigResult; declared: readonly Environment[]; selected: readonly Environment[] },
): Promise<{ states: { environment: Environment; state: DesiredState }[]; warnings: Diagnostic[] }> {
  const root = resolve(source.cwd, source.dir);
  const { project } = environments;
  const [load, git] = await Promise.all([
    loadEnvironments({ root, cwd: source.cwd, ...(source.only ? { only: source.only } : {}), project, declared: environments.declared, selected: environments.selected }),
    commitOf(source, root),
  ]);
  const strict = isStrict(source.strict, project.config);
  const states = load.environments.map((e) => ({ environment: e.environment, state: { project, desired: heldTo(e.desired, strict), git } }));
  return { states, warnings: load.warnings };
}

/** A daemon that started without environments meets a commit that declares some (they are read at start). */
function environmentsDeclared(file: string, cwd: string): Diagnostic {
  const message = 'dashcd.yaml declares environments, but this run reconciles one target; restart the daemon to run one loop per environment (commands: choose with --env)';
  return { file: shownPath(cwd, file), line: 0, col: 0, path: 'environments', message };
}

import { stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { DASHBOARD_FILE, discoverFiles } from '../desired/discover-files.js';
import { stringFlag, type CommandIo, type FlagValues } from './command.js';
import { CliError, ExitCode, UsageError } from './exit-codes.js';
import { defaultDashboardsRoot, findDashboardsRoot } from './dashboards-root.js';
import { shownPath } from '../lib/shown-path.js';

/**
 * What a command reads. Ids always derive from paths relative to `root`, however the command was invoked, so a
 * file has one id whether it is planned from the project root, from a subfolder, with `--dir` or by path.
 */
export interface DashboardsSelection {
  /** The dashboards root: the folder next to `dashcd.yaml`, else `dashboards/` (dashboards-root.ts). */
  root: string;
  /**
   * Absolute paths of the selected files when only part of the root is read (paths, or `--dir` naming a subfolder);
   * absent for the whole root. A selective run never reports orphans and never prunes: a file it did not read is
   * not a deleted file.
   */
  only?: string[];
}

/**
 * `--dir` and the paths given to plan, apply, validate and pin, resolved against `cwd`. A path that does not exist
 * is exit 3 (like a missing dashboards folder), a file that is not a dashboard file or paths from two dashboards
 * roots a usage error.
 */
export async function selectDashboards(input: { cwd: string; dir?: string | undefined; paths?: readonly string[] }): Promise<DashboardsSelection> {
  const { cwd } = input;
  const paths = input.paths ?? [];
  if (paths.length > 0 && input.dir !== undefined) throw new UsageError('give paths or --dir, not both');
  if (paths.length === 0) {
    if (input.dir === undefined) return { root: await defaultDashboardsRoot(cwd) };
    const dir = resolve(cwd, input.dir);
    const root = await findDashboardsRoot(dir, cwd);
    return relative(root, dir) === '' ? { root } : { root, only: await filesUnder(dir, input.dir) };
  }
  const targets = await Promise.all(paths.map(async (path) => ({ path, abs: resolve(cwd, path), folder: await isFolder(resolve(cwd, path), path) })));
  const roots = await Promise.all(targets.map((t) => findDashboardsRoot(t.folder ? t.abs : dirname(t.abs), cwd)));
  const root = roots[0] as string;
  const other = roots.findIndex((r) => r !== root);
  if (other >= 0) throw new UsageError(`${paths[0]} and ${paths[other]} are in different dashboards folders (${shownPath(cwd, root)}, ${shownPath(cwd, roots[other] as string)}); plan them separately`);
  const files = await Promise.all(targets.map((t) => (t.folder ? filesUnder(t.abs, t.path) : [checkedFile(t.abs, t.path)])));
  return { root, only: [...new Set(files.flat())].sort() };
}

/** Whether `path` is a folder; a missing path is exit 3, as a missing dashboards folder is. */
async function isFolder(abs: string, given: string): Promise<boolean> {
  try {
    return (await stat(abs)).isDirectory();
  } catch {
    throw new CliError(`${given}: no such file or folder`, ExitCode.InvalidDesiredState);
  }
}

function checkedFile(abs: string, given: string): string {
  if (!DASHBOARD_FILE.test(abs)) throw new UsageError(`${given} is not a dashboard file (.yaml, .yml or .json)`);
  return abs;
}

async function filesUnder(folder: string, given: string): Promise<string[]> {
  const found = await discoverFiles(folder);
  if (found.missing) throw new CliError(`${given}: no such folder`, ExitCode.InvalidDesiredState);
  return found.files.map((name) => resolve(folder, name));
}


/** The dashboards `plan`, `apply`, `validate` and `pin` read: `--dir` or the paths given, else the project's root. */
export function selectionFromArgs(flags: FlagValues, positionals: readonly string[], io: CommandIo): Promise<DashboardsSelection> {
  return selectDashboards({ cwd: io.cwd, dir: stringFlag(flags, 'dir'), paths: positionals });
}

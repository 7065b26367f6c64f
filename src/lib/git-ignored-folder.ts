import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { mkdirDurable, writeFileDurable } from './durable-file.js';
import { nodeFs, type FsLayer } from './fs-layer.js';

/** Ignores everything in the folder, this file included: what dashcd keeps there stays out of commits. */
export const IGNORE_EVERYTHING = '*\n';

/**
 * Creates the folder dashcd keeps its own files in (the data dir, the events archive) if missing, and keeps it out of
 * `git status` (its default place is in the user's repository) with a `.gitignore` of `*`, written durably and only
 * when there is none. Only for a folder dashcd has just made or one with a name only dashcd gives (`ownName`): a
 * folder the user points a flag at (`--archive .` in a shared repository root) would otherwise have git ignore the
 * user's own files. Resolves to whether the folder was made now.
 */
export async function ensureGitIgnoredFolder(dir: string, ownName?: string, fs: FsLayer = nodeFs): Promise<boolean> {
  const created = await mkdirDurable(dir, fs);
  if (!created && basename(dir) !== ownName) return created;
  const file = join(dir, '.gitignore');
  if (!existsSync(file)) await writeFileDurable(file, IGNORE_EVERYTHING, { fs });
  return created;
}

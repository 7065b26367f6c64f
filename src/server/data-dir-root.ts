import { chmod, lstat, readdir, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { TEMP_MARKER } from '../lib/durable-file.js';
import { ensureGitIgnoredFolder } from '../lib/git-ignored-folder.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import { ignoreMissing } from '../lib/fs-errors.js';

/** The CLI's default data dir name (`--data` default): a directory so named is dashcd's own wherever it is. */
export const DEFAULT_DATA_DIR_NAME = '.dashcd';
/**
 * A temp file in the root younger than this may be another dashcd's, still starting (writing `.gitignore`, or
 * `owner.json` before it finds the dir taken): deleting it would fail that start with a bare ENOENT.
 */
export const ROOT_TEMP_GRACE_MS = 60_000;

/**
 * Creates the data dir root if missing, makes it private (keepPrivate) and keeps it out of `git status` (the default
 * `.dashcd/` lives in the user's repository) with a `.gitignore` of `*`, written durably and only when there is none.
 * Both only for a directory dashcd has just made or one named `.dashcd`: a folder the user points `--data` at
 * (`--data .` in a shared repository root) would otherwise have git ignore the user's own files and be closed to the
 * user's group.
 */
export async function ensureDataDirRoot(root: string, fs: FsLayer = nodeFs): Promise<void> {
  const created = await ensureGitIgnoredFolder(root, DEFAULT_DATA_DIR_NAME, fs);
  if (created || basename(root) === DEFAULT_DATA_DIR_NAME) await keepPrivate(root);
}

/**
 * The data dir holds private documents, dashboards and token hashes in files other users could read by their own
 * modes (0644): only its owner may enter it (0700). A root others may enter (made before this rule, or by a umask of
 * 022) is closed by the user who owns it; another user's is left as it is (nothing dashcd may change).
 */
async function keepPrivate(root: string): Promise<void> {
  const { mode, uid } = await stat(root);
  if ((mode & 0o077) !== 0 && uid === process.getuid?.()) await chmod(root, mode & 0o700);
}

/**
 * Deletes the temp files that writes of the root's own files (`.gitignore`, `owner.json`) left in `root` when
 * dashcd died mid-write; nothing else ever would. Only names with TEMP_MARKER, only in `root` itself (the stores
 * below recover their own), and only ones older than ROOT_TEMP_GRACE_MS. Called by the data dir's new owner.
 */
export async function sweepRootTemps(root: string, now = Date.now()): Promise<void> {
  for (const name of await readdir(root)) {
    if (!name.includes(TEMP_MARKER)) continue;
    const path = join(root, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs >= ROOT_TEMP_GRACE_MS) await unlink(path).catch(ignoreMissing);
  }
}

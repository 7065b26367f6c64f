import { watch, type FSWatcher, type Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { isCode } from '../lib/fs-errors.js';

/** What a tree watcher reports, and what it leaves out. Paths are absolute. */
export interface TreeEvents {
  /** A folder not to watch, nor anything under it (the root itself is always watched). */
  skipFolder(path: string): boolean;
  /** A file whose writes and removal matter. */
  wantsFile(path: string): boolean;
  /** A wanted file was written, or appeared (created, renamed or moved into place). */
  onFile(path: string): void;
  /**
   * A wanted file or a folder went away (removed, renamed or moved out), a folder appeared, or the root itself did
   * either: only a look at the whole tree tells what changed.
   */
  onTree(path: string): void;
  onError(error: unknown, path: string): void;
}

export interface TreeWatcher {
  /** Resolves once every folder under the root is watched (or, while the root is missing, where it would appear). */
  readonly ready: Promise<void>;
  close(): void;
}

/**
 * Watches a folder tree with one `fs.watch` per folder. On Linux a folder's watch reports the names of the entries
 * that changed in it, so a saved file costs one `lstat`; chokidar, used before, re-read the whole folder (readdir and
 * an `lstat` per entry) on every event in it and held a watch per file besides (an inotify watch each, of the user's
 * 8,192 on many systems). Removals are not told apart from one another: they, new folders and the root coming or
 * going are reported as a tree change, which the daemon answers with a full pass.
 *
 * The root's nearest existing parent (its own parent while it exists) is watched too, for the root being created,
 * removed or renamed: a daemon started before its folder exists picks it up when it appears.
 */
export function watchTree(root: string, events: TreeEvents): TreeWatcher {
  const folders = new Map<string, FSWatcher>();
  let anchor: { path: string; watcher: FSWatcher } | undefined;
  let closed = false;
  let syncing: Promise<void> = Promise.resolve();

  const unwatchUnder = (folder: string): void => {
    for (const [path, watcher] of folders) {
      if (path === folder || path.startsWith(folder + sep)) {
        watcher.close();
        folders.delete(path);
      }
    }
  };

  /** Watches `folder` and every folder under it that is not skipped. */
  const watchFolder = async (folder: string): Promise<void> => {
    if (closed || folders.has(folder) || (folder !== root && events.skipFolder(folder))) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { persistent: true }, (_event, name) => void onEvent(folder, name));
    } catch (error) {
      if (!isMissing(error)) events.onError(error, folder);
      return;
    }
    watcher.on('error', (error) => {
      events.onError(error, folder);
      void recheck(folder);
    });
    folders.set(folder, watcher);
    const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
      if (!isMissing(error)) events.onError(error, folder);
      return [];
    });
    await Promise.all(entries.filter((entry) => entry.isDirectory()).map((entry) => watchFolder(join(folder, entry.name))));
  };

  /** An event in a watched folder: `name` is the entry that changed (null where the platform does not say). */
  const onEvent = async (folder: string, name: string | Buffer | null): Promise<void> => {
    if (closed) return;
    if (name === null) {
      events.onTree(folder);
      return;
    }
    const path = join(folder, name.toString());
    let entry: Stats;
    try {
      entry = await lstat(path);
    } catch (error) {
      if (!isMissing(error)) events.onError(error, path);
      else if (!closed) gone(path);
      return;
    }
    if (closed) return;
    if (entry.isDirectory()) return appeared(path);
    // A watched folder replaced by a file or a link under the same name.
    if (folders.has(path)) gone(path);
    // A link is its name, as the loader lists it (discover-files.ts): one with a wanted name is that file, whatever
    // it points at (the pass reports a broken one); a linked folder is neither walked nor watched.
    if (events.wantsFile(path)) events.onFile(path);
  };

  const gone = (path: string): void => {
    if (folders.has(path)) {
      unwatchUnder(path);
      events.onTree(path);
    } else if (events.wantsFile(path)) {
      events.onTree(path);
    }
  };

  const appeared = async (path: string): Promise<void> => {
    if (folders.has(path) || events.skipFolder(path)) return;
    await watchFolder(path);
    // After the watch is set: a file written before it is read by the full pass, one after it is reported.
    if (!closed) events.onTree(path);
  };

  /** A folder whose watch failed: still there, or gone with everything under it. */
  const recheck = async (folder: string): Promise<void> => {
    const exists = await stat(folder).then((s) => s.isDirectory(), () => false);
    if (!exists && !closed && folders.has(folder)) gone(folder);
  };

  /**
   * Brings the watches in line with whether the root exists: its tree and its parent while it does, its nearest
   * existing ancestor while it does not. One at a time.
   */
  const sync = (initial: boolean): Promise<void> => {
    syncing = syncing.then(async () => {
      if (closed) return;
      const exists = await stat(root).then((s) => s.isDirectory(), () => false);
      if (exists && !folders.has(root)) {
        await watchFolder(root);
        if (!initial) events.onTree(root);
      } else if (!exists && folders.has(root)) {
        unwatchUnder(root);
        events.onTree(root);
      }
      watchAnchor(exists ? dirname(root) : await nearestExisting(dirname(root)));
    });
    return syncing;
  };

  /** Watches `path` for the next step of the way down to the root being created, renamed or removed. */
  const watchAnchor = (path: string): void => {
    if (closed || anchor?.path === path) return;
    anchor?.watcher.close();
    anchor = undefined;
    const next = relative(path, root).split(sep)[0];
    try {
      const watcher = watch(path, { persistent: true }, (_event, name) => {
        if (name === null || name.toString() === next) void sync(false);
      });
      watcher.on('error', () => void sync(false));
      anchor = { path, watcher };
    } catch (error) {
      // Without it the tree is still watched; only the root's own coming and going goes unseen.
      events.onError(error, path);
    }
  };

  const ready = sync(true);
  return {
    ready,
    close: () => {
      closed = true;
      for (const watcher of folders.values()) watcher.close();
      folders.clear();
      anchor?.watcher.close();
      anchor = undefined;
    },
  };
}

async function nearestExisting(path: string): Promise<string> {
  for (let at = path; ; at = dirname(at)) {
    if (await stat(at).then((s) => s.isDirectory(), () => false)) return at;
    if (dirname(at) === at) return at;
  }
}

const isMissing = (error: unknown): boolean => isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR');

import { basename } from 'node:path';
import type { Logger } from '../lib/logger.js';
import { errorMessage } from '../lib/error-message.js';
import { shownPath } from '../lib/shown-path.js';
import { classicDashboards } from '../kinds/classic-dashboards.js';
import { watchTree } from './tree-watcher.js';

export interface DashboardWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Hidden entries (`.git`, an editor's `.name.swp`) are not the project's: never watched, never reported. */
const hidden = (path: string): boolean => basename(path).startsWith('.');

/**
 * Watches the dashboards folder. Saves and additions are reported per file (relative to `cwd`); a deletion, a
 * rename-away, a new folder or the folder itself appearing is reported as a tree change, because only a full pass can
 * tell what became an orphan (or that a "folder not found" no longer holds). An editor's write-temp-then-rename is the
 * target file appearing: one change.
 */
export function watchDashboards(options: {
  dir: string;
  cwd: string;
  log: Logger;
  onChange(files: string[]): void;
  onTreeChange(files: string[]): void;
}): DashboardWatcher {
  const { dir, cwd, log } = options;
  const watcher = watchTree(dir, {
    skipFolder: hidden,
    wantsFile: (path) => !hidden(path) && classicDashboards.isFile(path),
    onFile: (path) => options.onChange([shownPath(cwd, path)]),
    onTree: (path) => options.onTreeChange([shownPath(cwd, path)]),
    onError: (error, path) => log.error({ err: errorMessage(error), path: shownPath(cwd, path) }, 'watcher error'),
  });
  return { ready: watcher.ready, close: async () => watcher.close() };
}

import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../lib/logger.js';
import { errorMessage } from '../lib/error-message.js';
import { shownPath } from '../lib/shown-path.js';
import { classicDashboards } from '../kinds/classic-dashboards.js';

export interface DashboardWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches the dashboards folder. Saves and additions are reported per file (relative to `cwd`); a deletion, a
 * rename-away or the folder itself appearing is reported as a tree change, because only a full pass can tell what
 * became an orphan (or that a "folder not found" no longer holds). chokidar's `atomic` handling folds an editor's
 * write-temp-then-rename into one change event.
 */
export function watchDashboards(options: {
  dir: string;
  cwd: string;
  log: Logger;
  onChange(files: string[]): void;
  onTreeChange(files: string[]): void;
}): DashboardWatcher {
  const { dir, cwd, log } = options;
  const watcher: FSWatcher = watch(dir, {
    ignoreInitial: true,
    atomic: true,
    ignored: (path, stats) => {
      const name = path.split(/[\\/]/).pop() ?? '';
      if (name.startsWith('.') && path !== dir) return true;
      return stats?.isFile() === true && !classicDashboards.isFile(path);
    },
  });
  const interesting = (path: string): boolean => classicDashboards.isFile(path);
  watcher.on('add', (path) => interesting(path) && options.onChange([shownPath(cwd, path)]));
  watcher.on('change', (path) => interesting(path) && options.onChange([shownPath(cwd, path)]));
  watcher.on('unlink', (path) => interesting(path) && options.onTreeChange([shownPath(cwd, path)]));
  watcher.on('unlinkDir', (path) => options.onTreeChange([shownPath(cwd, path)]));
  watcher.on('addDir', (path) => path === dir && options.onTreeChange([shownPath(cwd, path)]));
  watcher.on('error', (error) => log.error({ err: errorMessage(error) }, 'watcher error'));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { ready, close: () => watcher.close() };
}

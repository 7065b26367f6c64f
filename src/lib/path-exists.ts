import { stat } from 'node:fs/promises';

/** Whether something is at `path` (a symlink counts by what it leads to); any error reads as nothing there. */
export async function pathExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

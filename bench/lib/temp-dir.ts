import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Runs `body` with a fresh directory under `root`, removed afterwards whatever happens. */
export async function withTempDirIn<T>(root: string, prefix: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(root, prefix));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

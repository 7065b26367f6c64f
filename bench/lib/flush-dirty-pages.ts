import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Writes every dirty page of the machine to disk (`sync`) and waits for it. What the bench generates stays in the
 * page cache unwritten for 30 s (`vm.dirty_expire_centisecs`), then the kernel writes it back in the background:
 * a 1,000,000-event JSONL is ~410 MB, and it was still dirty when the events figures measured pages, so its
 * write-back fell into their runs. Flushed first, a generated data set costs the figures nothing but the time of
 * its writing.
 */
export async function flushDirtyPages(): Promise<void> {
  await run('sync', []);
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurable } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';

export const OPEN_PROBLEMS_FILE = 'open-problems.json';

/** A pushed problem-opening event that is still open, and when it closes unless the same payload comes again. */
export const OpenProblem = z.object({
  /** Identifies "the same payload" for one entity (see push-events.ts). */
  key: z.string(),
  id: z.string(),
  correlationId: z.string(),
  deadline: z.number().int(),
});
export type OpenProblem = z.infer<typeof OpenProblem>;

const OpenProblemsFile = z.array(OpenProblem);

/**
 * The timeouts of pushed problem events, kept beside the log in `open-problems.json` (rewritten atomically on each
 * change) so they survive a restart. An entry is written before its event: after a crash an entry may name an event
 * that was never stored (it is dropped when due), but a stored open event always has its timeout.
 */
export class OpenProblems {
  private readonly byKey = new Map<string, OpenProblem>();
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly fs: FsLayer,
    entries: readonly OpenProblem[],
  ) {
    for (const entry of entries) this.byKey.set(entry.key, entry);
  }

  static async load(dir: string, log: Logger, fs: FsLayer = nodeFs): Promise<OpenProblems> {
    const path = join(dir, OPEN_PROBLEMS_FILE);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    let entries: OpenProblem[] = [];
    if (text !== undefined) {
      try {
        entries = OpenProblemsFile.parse(JSON.parse(text));
      } catch (error) {
        log.warn({ file: path, err: error }, 'ignored an unreadable open-problems file: those events stay open');
      }
    }
    return new OpenProblems(path, fs, entries);
  }

  /** Runs `task` after every earlier one: pushes and expiry never interleave. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  find(key: string): OpenProblem | undefined {
    return this.byKey.get(key);
  }

  due(now: number): OpenProblem[] {
    return [...this.byKey.values()].filter((entry) => entry.deadline <= now);
  }

  hasDue(now: number): boolean {
    for (const entry of this.byKey.values()) if (entry.deadline <= now) return true;
    return false;
  }

  /** Adds or replaces entries and removes others, then writes the file durably. */
  async update(upserts: readonly OpenProblem[], removals: readonly string[] = []): Promise<void> {
    if (upserts.length === 0 && removals.length === 0) return;
    for (const key of removals) this.byKey.delete(key);
    for (const entry of upserts) this.byKey.set(entry.key, entry);
    await writeFileDurable(this.path, `${JSON.stringify([...this.byKey.values()])}\n`, { fs: this.fs });
  }
}

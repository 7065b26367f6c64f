import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurable } from '../lib/durable-file.js';
import type { FsLayer } from '../lib/fs-layer.js';
import { ArchiveError } from './archive-error.js';

/** A pull in progress: `[from, position]` (newest first) is still to fetch; `to` becomes the watermark when done. */
export const RunState = z.object({ from: z.number(), to: z.number(), position: z.number() });
export type RunState = z.infer<typeof RunState>;

/**
 * Progress of one feed query (all events, or one `--type`/`--entity` filter) in one environment.
 * - `watermark`: the `to` of the last completed run; the next run starts there (minus the late-arrival margin).
 * - `horizon`: the earliest `from` a completed run covered; a larger `--since` later widens it.
 * The events still open are not here but beside their partitions (open-index.ts), so the checkpoint stays a few
 * hundred bytes however many there are; an `open` member an earlier version wrote is ignored (the partitions say
 * the same).
 */
export const StreamState = z.object({
  watermark: z.number().nullable(),
  horizon: z.number().nullable(),
  run: RunState.nullable(),
});
export type StreamState = z.infer<typeof StreamState>;

export const Checkpoint = z.object({
  version: z.literal(1),
  env: z.string(),
  updatedAt: z.string(),
  streams: z.record(z.string(), StreamState),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export const CHECKPOINT_FILE = '_checkpoint.json';

export function emptyStream(): StreamState {
  return { watermark: null, horizon: null, run: null };
}

/** The key a filter's progress is kept under: `all`, or the filter as a query string. */
export function streamKey(filter: { eventType?: string | undefined; entityId?: string | undefined }): string {
  const params = new URLSearchParams();
  if (filter.eventType) params.set('eventType', filter.eventType);
  if (filter.entityId) params.set('entityId', filter.entityId);
  return params.size === 0 ? 'all' : params.toString();
}

/** Reads the environment's checkpoint; a missing file is a fresh start, an unreadable one is an error to fix by hand. */
export async function readCheckpoint(envDir: string, env: string): Promise<Checkpoint> {
  const path = join(envDir, CHECKPOINT_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, env, updatedAt: new Date(0).toISOString(), streams: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ArchiveError('BAD_CHECKPOINT', `${path} is not JSON — delete it to pull again from --since (the archive skips versions it holds)`, { cause: error });
  }
  const result = Checkpoint.safeParse(parsed);
  if (!result.success) {
    throw new ArchiveError('BAD_CHECKPOINT', `${path} is not a dashcd checkpoint (${result.error.issues[0]?.message ?? 'invalid'}) — delete it to pull again from --since`);
  }
  return result.data;
}

/** Replaces the checkpoint atomically and durably; callers write it only after the data it covers is fsynced. */
export async function writeCheckpoint(envDir: string, checkpoint: Checkpoint, fs?: FsLayer): Promise<void> {
  await writeFileDurable(join(envDir, CHECKPOINT_FILE), `${JSON.stringify(checkpoint)}\n`, { fs });
}

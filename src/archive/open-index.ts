import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurable } from '../lib/durable-file.js';
import type { FsLayer } from '../lib/fs-layer.js';
import type { OpenEvent } from './pull-plan.js';

/**
 * `date=YYYY-MM-DD/_open.json`: the events of that partition whose last archived version is OPEN, and the partition's
 * length in bytes when that was true. Only a cache of what the partition says: a file that is missing, unreadable or
 * written for another length is rebuilt from the partition, so no write order between it, the partition and the
 * checkpoint matters for correctness. It spares a pull reading 90 days of partitions to find the open events.
 */
export const OPEN_INDEX_FILE = '_open.json';

/** `[id, startTime, endTime, entityId, eventType]`: positional, as a day can hold tens of thousands. */
const OpenEntry = z.tuple([z.string(), z.number(), z.number().nullable(), z.string().nullable(), z.string().nullable()]);

const OpenIndex = z.object({
  version: z.literal(1),
  bytes: z.number().int().nonnegative(),
  open: z.array(OpenEntry),
});

/** The partition's length, 0 when it has no file yet. */
export async function partitionBytes(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** The day's open events as its index records them, or undefined when the index does not describe `bytes` bytes. */
export async function readOpenIndex(dir: string, bytes: number): Promise<Map<string, OpenEvent> | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, OPEN_INDEX_FILE), 'utf8');
  } catch {
    // Missing, or unreadable however (EACCES, EISDIR, EIO): the partition says the same, only slower.
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const index = OpenIndex.safeParse(parsed);
  if (!index.success || index.data.bytes !== bytes) return undefined;
  return new Map(
    index.data.open.map(([id, startTime, endTime, entityId, eventType]) => [
      id,
      { startTime, endTime: endTime ?? undefined, entityId: entityId ?? undefined, eventType: eventType ?? undefined },
    ]),
  );
}

/** Replaces the day's index atomically and durably; `bytes` must be a length of the partition that is on disk. */
export async function writeOpenIndex(dir: string, bytes: number, open: ReadonlyMap<string, OpenEvent>, fs?: FsLayer): Promise<void> {
  const entries = [...open].map(([id, event]) => [id, event.startTime, event.endTime ?? null, event.entityId ?? null, event.eventType ?? null]);
  await writeFileDurable(join(dir, OPEN_INDEX_FILE), `${JSON.stringify({ version: 1, bytes, open: entries })}\n`, { fs });
}

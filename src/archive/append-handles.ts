import type { FileHandleLike, FsLayer } from '../lib/fs-layer.js';

export interface AppendHandles {
  /** Appends `data` to `file` and fsyncs it: when this resolves the bytes are on disk. */
  appendDurable(file: string, data: string): Promise<void>;
  close(file: string): Promise<void>;
  closeAll(): Promise<void>;
}

interface Waiter {
  readonly data: string;
  readonly done: (error?: unknown) => void;
}

interface Entry {
  readonly handle: Promise<FileHandleLike>;
  readonly queue: Waiter[];
  flushing: Promise<void> | undefined;
}

/**
 * `appendDurable` (write, then fsync) with two things added for a pull's page-after-page appends:
 * - the file stays open between calls (opening and closing it each time costs as much as the write);
 * - group commit: appends that arrive while the file's fsync runs are written together and share the next fsync.
 *   With a fast disk every page still gets its own fsync; with a slow one the feed is not held to the disk's pace.
 *   Either way a call resolves only after an fsync that began after its bytes were written.
 * At most `maxOpen` idle files stay open (least recently used closed first).
 */
export function createAppendHandles(fs: FsLayer, maxOpen = 8): AppendHandles {
  const entries = new Map<string, Entry>();
  /**
   * Files whose write or fsync failed, with the error: the file may now end in a line cut short (a full disk writes
   * what fits), so nothing more is appended to it by these handles, or a later page's lines would follow the torn one
   * and it could no longer be cut off. The next run truncates it (partition-writer's loadDay).
   */
  const failed = new Map<string, unknown>();

  const closeEntry = async (file: string, entry: Entry): Promise<void> => {
    if (entries.get(file) === entry) entries.delete(file);
    await entry.flushing?.catch(() => undefined);
    await (await entry.handle.catch(() => undefined))?.close();
  };

  const evictIdle = async (): Promise<void> => {
    for (const [file, entry] of entries) {
      if (entries.size <= maxOpen) return;
      if (!entry.flushing && entry.queue.length === 0) await closeEntry(file, entry);
    }
  };

  const flush = async (file: string, entry: Entry): Promise<void> => {
    while (entry.queue.length > 0) {
      const batch = entry.queue.splice(0);
      try {
        const handle = await entry.handle;
        await handle.write(batch.length === 1 ? (batch[0] as Waiter).data : batch.map((w) => w.data).join(''));
        await handle.sync();
        for (const waiter of batch) waiter.done();
      } catch (error) {
        failed.set(file, error);
        for (const waiter of [...batch, ...entry.queue.splice(0)]) waiter.done(error);
        entries.delete(file);
        await (await entry.handle.catch(() => undefined))?.close().catch(() => undefined);
      }
    }
    entry.flushing = undefined;
  };

  return {
    async appendDurable(file, data) {
      if (failed.has(file)) throw failed.get(file);
      let entry = entries.get(file);
      if (entry) entries.delete(file);
      entry ??= { handle: fs.open(file, 'a'), queue: [], flushing: undefined };
      entries.set(file, entry);
      const written = new Promise<void>((resolve, reject) => {
        (entry as Entry).queue.push({ data, done: (error) => (error === undefined ? resolve() : reject(error)) });
      });
      entry.flushing ??= flush(file, entry);
      await written;
      await evictIdle();
    },
    async close(file) {
      const entry = entries.get(file);
      if (entry) await closeEntry(file, entry);
    },
    async closeAll() {
      await Promise.all([...entries].map(([file, entry]) => closeEntry(file, entry)));
    },
  };
}

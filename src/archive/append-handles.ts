import type { FileHandleLike, FsLayer } from '../lib/fs-layer.js';

export interface AppendHandles {
  /** Appends `data` to `file` and fsyncs it: when this resolves the bytes are on disk. */
  appendDurable(file: string, data: string): Promise<void>;
  close(file: string): Promise<void>;
  closeAll(): Promise<void>;
}

interface Entry {
  readonly handle: Promise<FileHandleLike>;
  busy: number;
  /** Appends to one file run one after another (each is write + fsync), whoever calls. */
  tail: Promise<void>;
}

/**
 * `appendDurable` (write, then fsync) with the file kept open between calls: a pull appends to the same
 * partition page after page, and opening and closing it each time costs as much as the write. At most `maxOpen`
 * idle handles stay open (least recently used closed first).
 */
export function createAppendHandles(fs: FsLayer, maxOpen = 8): AppendHandles {
  const entries = new Map<string, Entry>();

  const closeEntry = async (file: string, entry: Entry): Promise<void> => {
    if (entries.get(file) === entry) entries.delete(file);
    await (await entry.handle.catch(() => undefined))?.close();
  };

  const evictIdle = async (): Promise<void> => {
    for (const [file, entry] of entries) {
      if (entries.size <= maxOpen) return;
      if (entry.busy === 0) await closeEntry(file, entry);
    }
  };

  return {
    async appendDurable(file, data) {
      let entry = entries.get(file);
      if (entry) entries.delete(file);
      entry ??= { handle: fs.open(file, 'a'), busy: 0, tail: Promise.resolve() };
      entries.set(file, entry);
      const current = entry;
      current.busy++;
      const append = current.tail.then(async () => {
        const handle = await current.handle;
        await handle.write(data);
        await handle.sync();
      });
      current.tail = append.catch(() => undefined);
      try {
        await append;
      } catch (error) {
        await closeEntry(file, current);
        throw error;
      } finally {
        current.busy--;
      }
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

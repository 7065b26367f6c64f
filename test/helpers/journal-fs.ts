import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';
import type { JournalRecord } from '../../src/server/store/write-journal.js';

/** A journal record of `text` (UTF-8), or a removal for null. */
export const record = (id: string, text: string | null): JournalRecord => ({ id, contents: text === null ? null : Buffer.from(text) });

/**
 * Counts commits (writes) to journal files and records the flags they were opened with; `failWrites` makes journal
 * writes fail with ENOSPC.
 */
export function countingFs(counts: { walWrites: number; walFlags?: string[] }, control = { failWrites: false }): FsLayer {
  return {
    ...nodeFs,
    async open(path, flags, mode) {
      const handle = await nodeFs.open(path, flags, mode);
      if (!path.endsWith('.wal')) return handle;
      counts.walFlags?.push(flags);
      return {
        write(data) {
          if (control.failWrites) return Promise.reject(Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }));
          counts.walWrites += 1;
          return handle.write(data);
        },
        close: () => handle.close(),
        sync: () => handle.sync(),
      };
    },
  };
}

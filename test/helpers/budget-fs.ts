import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';

/**
 * The real file system with a byte budget for writes: a write past it writes what fits, then fails with ENOSPC, as
 * write(2) does on a full disk. `setBudget` changes what is left (Infinity: room again).
 */
export function budgetFs(bytes = Number.POSITIVE_INFINITY): { fs: FsLayer; setBudget(bytes: number): void } {
  let left = bytes;
  const fs: FsLayer = {
    ...nodeFs,
    async open(path, flags, mode) {
      const handle = await nodeFs.open(path, flags, mode);
      return {
        ...handle,
        async write(data) {
          const buffer = typeof data === 'string' ? Buffer.from(data) : data;
          const fits = buffer.subarray(0, Math.max(0, Math.min(left, buffer.length)));
          left -= fits.length;
          if (fits.length > 0) await handle.write(fits);
          if (fits.length < buffer.length) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
  };
  return { fs, setBudget: (next) => void (left = next) };
}

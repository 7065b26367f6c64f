import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';

/** The real file system, keeping count of the handles opened through it and naming those not closed yet. */
export function openHandlesFs(): { fs: FsLayer; opened: () => number; unclosed: () => string[] } {
  const unclosed = new Set<string>();
  let opened = 0;
  const fs: FsLayer = {
    ...nodeFs,
    async open(path, flags, mode) {
      const handle = await nodeFs.open(path, flags, mode);
      const key = `${path} #${opened++}`;
      unclosed.add(key);
      return { ...handle, close: () => (unclosed.delete(key), handle.close()) };
    },
  };
  return { fs, opened: () => opened, unclosed: () => [...unclosed] };
}

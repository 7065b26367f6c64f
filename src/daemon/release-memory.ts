import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../lib/logger.js';

let collect: (() => void) | undefined;

/**
 * Full garbage collections, now. After a full pass over a large folder the heap holds that pass's garbage (file
 * texts, parsed dashboards, write bodies) and V8, with the daemon idle, neither collects it nor gives the pages
 * back for minutes: at 10,000 dashboards the RSS stayed ~300 MB above what was live. The first collection frees the
 * garbage; the second moves every survivor out of the pages the first left sparse, so those go back too. A plain
 * second collection moves only the sparsest few: the old space stayed at 206 MB for 137 MB live, against 140 MB
 * after a compacting one (bench `daemon-scale`; a few hundred ms, once per large pass). Compacting the first time
 * instead would copy the survivors while the garbage still holds its pages, raising the peak. Node offers `gc` only
 * behind --expose-gc, so the flag is set here and the function taken from a fresh context, the one place it then
 * appears; the daemon's own context is left as it is, and so are later collections (compaction flag cleared again).
 */
export function releaseMemory(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/**
 * Releases memory once `written` settles: the target's files then hold every write of the pass, so the contents
 * its embedded store kept for them are garbage too (collecting before that left ~100 MB of them, at 10,000
 * dashboards, on a heap then idle). A failed write is the store's to log and retry; memory is released anyway.
 */
export async function releaseMemoryAfter(written: Promise<void>, release: () => void = releaseMemory): Promise<void> {
  await written.catch(() => undefined);
  release();
}

/** After a pass larger than one chunk: releases memory once `written` settles and logs the heap it kept. */
export async function releaseMemoryAfterLargePass(written: Promise<void>, log: Logger): Promise<void> {
  await releaseMemoryAfter(written);
  log.info({ heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) }, 'memory released after a large pass');
}

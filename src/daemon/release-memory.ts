import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * One full garbage collection, now. After a full pass over a large folder the heap holds that pass's garbage (file
 * texts, parsed dashboards, write bodies) and V8, with the daemon idle, neither collects it nor gives the pages
 * back for minutes: at 10,000 dashboards the RSS stayed ~300 MB above what was live. A collection right after the
 * pass returns it (~60 ms once per large full pass). Node offers `gc` only behind --expose-gc, so the flag is set
 * here and the function taken from a fresh context, the one place it then appears; the daemon's own context is
 * left as it is.
 */
export function releaseMemory(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * Full garbage collections, now. After a full pass over a large folder the heap holds that pass's garbage (file
 * texts, parsed dashboards, write bodies) and V8, with the daemon idle, neither collects it nor gives the pages
 * back for minutes: at 10,000 dashboards the RSS stayed ~300 MB above what was live. Two collections right after
 * the pass return most of it (~60 ms each, once per large full pass): the first frees the garbage, the second moves
 * the survivors out of the pages it left sparse so those go back too (10,000 dashboards: 650 MB after one, 520 MB
 * after two, 505 MB after three). Node offers `gc` only behind --expose-gc, so the flag is set here and the
 * function taken from a fresh context, the one place it then appears; the daemon's own context is left as it is.
 */
export function releaseMemory(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  collect();
}

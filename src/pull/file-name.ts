import { join } from 'node:path';
import { pathExists } from '../lib/path-exists.js';
import { PROJECT_CONFIG_FILES } from '../schema/project-config-files.js';

/**
 * A new file's path in `dir` for an item pulled by name: `CPU & memory (prod)` → `cpu-memory-prod.yaml`; a name
 * that is taken (on disk, even by a file that is not a valid dashboard, or earlier in this pull) gets the id's first
 * eight characters, then a counter. Classic dashboards and documents share the folder, so they share the names.
 */
export async function freeFileName(dir: string, item: { name: string; id: string }, taken: ReadonlySet<string>): Promise<string> {
  const slug =
    item.name
      .normalize('NFKD')
      // Accents go, so `Überblick` is `uberblick`, as derived document ids spell it (desired/document-id.ts).
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 80)
      .replace(/^-+|-+$/g, '') || 'dashboard';
  const block = idBlock(item.id);
  // A document named `dashcd` became the project's dashcd.yaml (with `--dir .`) or a second project root in the folder.
  const reserved = (PROJECT_CONFIG_FILES as readonly string[]).includes(`${slug}.yaml`);
  for (let n = reserved ? 1 : 0; ; n++) {
    const path = join(dir, n === 0 ? `${slug}.yaml` : n === 1 ? `${slug}-${block}.yaml` : `${slug}-${block}-${n}.yaml`);
    if (!taken.has(path) && !(await pathExists(path))) return path;
  }
}


/**
 * The id's first eight characters that can be part of a file name: the id is the target's word, and a hostile one
 * (`/../../x`) wrote files outside `dir`. Real ids (UUIDs, document ids) keep all eight.
 */
export function idBlock(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 8) || 'id';
}

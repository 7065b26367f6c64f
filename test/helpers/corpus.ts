import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

/**
 * The workplace's shared material (`../shared` beside the repository, as the project brief places it). Set
 * DASHCD_SHARED_DIR to read it from elsewhere. Tests need it: a missing folder fails them loudly, never skips them.
 */
export const SHARED_DIR =
  process.env.DASHCD_SHARED_DIR ?? [resolve(REPO_ROOT, '../shared'), '/work/shared'].find((dir) => existsSync(join(dir, 'corpus'))) ?? resolve(REPO_ROOT, '../shared');

export const CORPUS_DIR = join(SHARED_DIR, 'corpus');
export const CORPUS_DASHBOARDS_DIR = join(CORPUS_DIR, 'dashboards');
/** Platform documents' contents (the Dashboards and Notebooks apps), as the Document service stores them. */
export const CORPUS_DOCUMENTS_DIR = join(CORPUS_DIR, 'documents');
export const CORPUS_DOCUMENT_DASHBOARDS_DIR = join(CORPUS_DOCUMENTS_DIR, 'dashboards');
export const CORPUS_NOTEBOOKS_DIR = join(CORPUS_DOCUMENTS_DIR, 'notebooks');

/** Every corpus dashboard file (`*.json`), by name in order, with its text: the tests that walk them all. */
export function corpusDashboardFiles(): { name: string; text: string }[] {
  return readdirSync(CORPUS_DASHBOARDS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(CORPUS_DASHBOARDS_DIR, name), 'utf8') }));
}

import { resolve } from 'node:path';
import { discoverFiles } from '../desired/discover-files.js';
import { shownPath } from '../lib/shown-path.js';

/**
 * Files per chunk of a large full pass. A full pass over the whole folder at once holds every file's text, parsed
 * dashboard, write body and live copy together: about 1.4 GB at 10,000 dashboards, which V8 then keeps committed.
 * Chunk by chunk it holds one chunk's worth (~50 MB at 500), and writes start after the first chunk is planned.
 */
export const PASS_CHUNK_FILES = 500;

/**
 * The folder's dashboard files (relative to `cwd`, `/` separators, in the loader's order) in chunks of `size`; or
 * undefined when one chunk would hold them all, or the folder is missing (the whole pass reports that).
 */
export async function fullPassChunks(dir: string, cwd: string, size = PASS_CHUNK_FILES): Promise<string[][] | undefined> {
  const root = resolve(cwd, dir);
  const found = await discoverFiles(root);
  if (found.missing || found.files.length <= size) return undefined;
  const files = found.files.map((name) => shownPath(cwd, resolve(root, name)));
  const chunks: string[][] = [];
  for (let i = 0; i < files.length; i += size) chunks.push(files.slice(i, i + size));
  return chunks;
}

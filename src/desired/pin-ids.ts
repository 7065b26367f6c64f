import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileDurable } from '../lib/durable-file.js';
import { withDocumentId, withId } from './id-edit.js';
import { loadDesired } from './load-desired.js';

/**
 * Writes each derived id into the file it was derived from, so the file can be renamed without becoming a new
 * dashboard. Only valid dashboards without an id are touched: a classic dashboard's top-level `id`, a platform
 * document's `document.id`. The edit is textual (one inserted `id` line, or the empty `id` value filled in), so
 * comments, quoting and layout stay exactly as they were. Each edited text is re-parsed and must equal the original
 * plus the id before it replaces the file (durably). `dir` is the dashboards root the ids derive from; `only`
 * limits the run to some of its files.
 */
export async function pinIds({ dir, cwd = process.cwd(), only }: { dir: string; cwd?: string; only?: string[] }): Promise<{ file: string; id: string }[]> {
  const desired = await loadDesired({ dir, cwd, ...(only ? { only } : {}) });
  const pinned: { file: string; id: string }[] = [];
  for (const dashboard of desired.dashboards) {
    if (dashboard.idSource !== 'derived') continue;
    const path = resolve(cwd, dashboard.file);
    const bytes = await readFile(path);
    // Changed since it was loaded (an editor saving): leave it for the next run rather than edit unseen content.
    if (createHash('sha256').update(bytes).digest('hex') !== dashboard.contentHash) continue;
    const pin = dashboard.kind === 'document' ? withDocumentId : withId;
    await writeFileDurable(path, pin(bytes.toString('utf8'), dashboard.id));
    pinned.push({ file: dashboard.file, id: dashboard.id });
  }
  return pinned;
}

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ProjectConfig } from '../config/project-config.js';
import type { Environment } from '../environments/environment.js';
import { collapseByEnvironment } from '../environments/locate-diagnostics.js';
import { writeFileDurable } from '../lib/durable-file.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { withDocumentId, withId } from '../desired/id-edit.js';
import { loadDesired, type DesiredDashboard } from '../desired/load-desired.js';
import { loadEnvironments } from './load-environments.js';

export interface PinOptions {
  /** The dashboards root the ids derive from. */
  dir: string;
  cwd?: string;
  /** Only some of its files. */
  only?: string[];
  /** The project's, when dashcd.yaml declares environments: files are read as it reads them (templates, `dashcd:`). */
  environments?: { project: { config: ProjectConfig; file?: string; source?: string }; declared: readonly Environment[] };
}

export interface PinOutcome {
  pinned: { file: string; id: string }[];
  /** Files saved again since they were read (an editor): left for the next run, never edited unseen. */
  changed: string[];
  /** Why the files not pinned were not: their problems, as validate reports them. */
  diagnostics: Diagnostic[];
  /** Valid files whose id was already written in them: "0 files pinned" alone read as if pin had found nothing. */
  alreadyPinned: number;
}

/** A valid file whose id is derived from its path, with the hash its bytes had when it was read. */
interface Candidate {
  dashboard: DesiredDashboard;
  bytesHash: string;
}

/**
 * Writes each derived id into the file it was derived from, so the file can be renamed without becoming a new
 * dashboard. Only valid dashboards without an id are touched: a classic dashboard's top-level `id`, a platform
 * document's `document.id`. The edit is textual (one inserted `id` line, or the empty `id` value filled in), so
 * comments, quoting and layout stay exactly as they were. Each edited text is re-parsed and must equal the original
 * plus the id before it replaces the file (durably). With environments, a file is valid when it is in every
 * environment it is rendered for; an invalid file is reported, not skipped in silence.
 */
export async function pinIds(options: PinOptions): Promise<PinOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const { candidates, diagnostics, alreadyPinned } = options.environments ? await acrossEnvironments(options, cwd) : await inFolder(options, cwd);
  const invalid = new Set(diagnostics.map((d) => d.file));
  const pinned: PinOutcome['pinned'] = [];
  const changed: string[] = [];
  for (const { dashboard, bytesHash } of candidates) {
    if (invalid.has(dashboard.file)) continue;
    const path = resolve(cwd, dashboard.file);
    const bytes = await readFile(path);
    if (createHash('sha256').update(bytes).digest('hex') !== bytesHash) {
      changed.push(dashboard.file);
      continue;
    }
    const pin = dashboard.kind === 'document' ? withDocumentId : withId;
    await writeFileDurable(path, pin(bytes.toString('utf8'), dashboard.id));
    pinned.push({ file: dashboard.file, id: dashboard.id });
  }
  return { pinned, changed, diagnostics, alreadyPinned };
}

type Candidates = Pick<PinOutcome, 'diagnostics' | 'alreadyPinned'> & { candidates: Candidate[] };

async function inFolder(options: PinOptions, cwd: string): Promise<Candidates> {
  const desired = await loadDesired({ dir: options.dir, cwd, ...(options.only ? { only: options.only } : {}) });
  const candidates = desired.dashboards.filter((d) => d.idSource === 'derived').map((dashboard) => ({ dashboard, bytesHash: dashboard.contentHash }));
  return { candidates, diagnostics: desired.diagnostics, alreadyPinned: desired.dashboards.length - candidates.length };
}

/** Each file once, whichever environments render it: its derived id is its path's in all of them. */
async function acrossEnvironments(options: PinOptions, cwd: string): Promise<Candidates> {
  const { project, declared } = options.environments as NonNullable<PinOptions['environments']>;
  const root = resolve(cwd, options.dir);
  const only = options.only?.map((file) => resolve(cwd, file));
  const load = await loadEnvironments({ root, cwd, ...(only ? { only } : {}), project, declared, selected: declared });
  const byFile = new Map<string, Candidate>();
  const pinnedFiles = new Set<string>();
  for (const { desired } of load.environments) {
    for (const dashboard of desired.dashboards) {
      const bytesHash = load.fileHashes.get(dashboard.file);
      if (dashboard.idSource !== 'derived') pinnedFiles.add(dashboard.file);
      else if (bytesHash !== undefined && !byFile.has(dashboard.file)) byFile.set(dashboard.file, { dashboard, bytesHash });
    }
  }
  const diagnostics = collapseByEnvironment(load.environments.flatMap((e) => e.desired.diagnostics));
  return { candidates: [...byFile.values()], diagnostics, alreadyPinned: pinnedFiles.size };
}

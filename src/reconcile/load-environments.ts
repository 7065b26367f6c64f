import { resolve } from 'node:path';
import type { ProjectConfig } from '../config/project-config.js';
import type { DesiredResult } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import type { Environment } from '../environments/environment.js';
import { loadTemplates } from '../environments/load-templates.js';
import { resolveEnvironmentsInTurns } from '../environments/resolve-environments.js';
import { shownPath } from '../lib/shown-path.js';
import { classicDashboards } from '../kinds/classic-dashboards.js';

export interface EnvironmentsLoadInput {
  /** The dashboards root: ids and `dashboard("…")` paths are relative to it. */
  root: string;
  cwd: string;
  /** Absolute paths of the files of a selective run; every file is still read, for references between them. */
  only?: readonly string[];
  project: { config: ProjectConfig; file?: string; source?: string };
  declared: readonly Environment[];
  selected: readonly Environment[];
}

export interface EnvironmentsLoad {
  /** One desired state per selected environment; its diagnostics include the ones every environment shares. */
  environments: { environment: Environment; desired: DesiredResult }[];
  /** Problems in no particular environment (a file that does not parse, a bad `dashcd:` member). */
  shared: Diagnostic[];
  /** Values no dashboard uses. */
  warnings: Diagnostic[];
  /** Each file's bytes' sha256 as read, by shown path (a rendered dashboard's contentHash is its body's). */
  fileHashes: ReadonlyMap<string, string>;
}

/** source → desired → environments: the files read once, then resolved for each selected environment. */
export async function loadEnvironments(input: EnvironmentsLoadInput): Promise<EnvironmentsLoad> {
  const templates = await loadTemplates({ dir: input.root, cwd: input.cwd });
  const configFile = input.project.file ?? resolve(input.root, '..', 'dashcd.yaml');
  const resolved = await resolveEnvironmentsInTurns({
    files: templates.files,
    unread: templates.unread,
    project: { file: shownPath(input.cwd, configFile), source: input.project.source ?? '', config: input.project.config },
    declared: input.declared,
    selected: input.selected,
    deriveId: classicDashboards.deriveId,
  });
  const selectedFile = selectedFiles(input);
  const shared = [...templates.diagnostics, ...resolved.diagnostics].filter((d) => selectedFile(d.file));
  const environments = resolved.environments.map(({ environment, dashboards, diagnostics, warnings }) => ({
    environment,
    desired: {
      dashboards: dashboards.filter((d) => selectedFile(d.file)),
      diagnostics: [...shared, ...diagnostics.filter((d) => selectedFile(d.file))],
      warnings: warnings.filter((d) => selectedFile(d.file)),
      files: templates.count,
    },
  }));
  return { environments, shared, warnings: resolved.warnings, fileHashes: templates.hashes };
}

/** Whether a file (as diagnostics show it, relative to cwd) is part of the run. */
function selectedFiles(input: EnvironmentsLoadInput): (file: string) => boolean {
  if (input.only === undefined) return () => true;
  const wanted = new Set(input.only.map((path) => shownPath(input.cwd, path)));
  return (file) => wanted.has(file);
}

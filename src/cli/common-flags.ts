import type { FlagSpec } from './command.js';

/** Flags several commands share, so their names, defaults and help read the same everywhere. */
// No `default`: absent means the project's dashboards root (dashboards-root.ts), found from any working directory.
export const dirFlag: FlagSpec = {
  type: 'string',
  description: 'Dashboards folder, or a subfolder of it (default: dashboards/ next to dashcd.yaml, in the working directory or at the git root)',
  valueName: 'path',
};
/** plan and apply: absent flags defer to `prune` and `maxDelete` in dashcd.yaml, which a flag default would hide. */
export const pruneFlags: Record<'prune' | 'max-delete', FlagSpec> = {
  prune: { type: 'boolean', description: 'Delete owned dashboards that have no file (default: prune in dashcd.yaml; --no-prune keeps them)' },
  'max-delete': { type: 'string', description: 'Most dashboards pruning may delete in one run (default: maxDelete in dashcd.yaml, else 5)', valueName: 'n' },
};
/** plan, apply and validate: files or folders inside the dashboards folder, read with the ids of a full run. */
export const pathsPositional = { name: 'path', description: 'Only these dashboard files or folders (no orphans, no pruning)', variadic: true } as const;
export const targetFlag: FlagSpec = {
  type: 'string',
  description: 'Environment URL (else DT_ENV_URL; else the embedded store in --data); token from DT_API_TOKEN',
  valueName: 'url',
};
/** validate, plan and apply: the same as `strict: true` in dashcd.yaml. */
export const strictFlag: FlagSpec = { type: 'boolean', description: 'Unknown keys in dashboard files are errors (exit 3), not warnings' };
/** validate, plan and apply: the check cache between runs (desired/check-cache-file.ts, docs/files-and-plans.md). */
export const cacheFlag: FlagSpec = {
  type: 'boolean',
  description: 'Reuse the checks of unchanged files from earlier runs, kept in $XDG_CACHE_HOME/dashcd or ~/.cache/dashcd (default: on; --no-cache or DASHCD_CACHE=off checks every file)',
};
export const dataFlag: FlagSpec = { type: 'string', description: 'Data dir of the embedded store (default: .dashcd in the project root, beside dashboards/ or dashcd.yaml)', valueName: 'path' };
/** events pull and the daemon's poller: where the first pull into an empty archive starts. */
export const sinceFlag: FlagSpec = {
  type: 'string',
  description: 'How far back the archive reaches: a span back from each pull\'s start (30d, 12h), or from an instant (an ISO date or epoch ms); the first pull goes back this far, a later one further back fetches again from there to now (what is archived is skipped), an interrupted one finishes its own window first',
  default: '30d',
  valueName: 'time',
};
export const concurrencyFlag: FlagSpec = { type: 'string', description: 'Parallel requests to the target', default: '8', valueName: 'n' };

export const archiveFlag: FlagSpec = { type: 'string', description: 'Archive folder (default: events-archive in the project root, beside dashboards/ or dashcd.yaml)', valueName: 'path' };

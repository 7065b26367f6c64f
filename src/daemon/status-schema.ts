import { z } from 'zod';
import { Revision } from '../source/revision.js';

/**
 * The daemon's `/status` body, as a typed value: what the daemon writes and what a reader (the console, a test, a
 * script) can parse. One target: the fields of one reconcile loop at the top level. Environments: one such block
 * per environment, in the order dashcd.yaml declares them.
 */
export const FileResult = z.enum(['created', 'adopted', 'updated', 'unchanged', 'drift-reverted', 'drift-reported', 'failed', 'invalid', 'rejected']);
export type FileResult = z.infer<typeof FileResult>;

/**
 * Which kind of item a file or an orphan is, as plan JSON names it: `dashboard` (a classic dashboard) or `document`
 * (a platform dashboard or notebook of the Document service).
 */
export const ItemKind = z.enum(['dashboard', 'document']);
export type ItemKind = z.infer<typeof ItemKind>;

/** `kind`: absent only for a file never read valid (invalid from the start: its kind is unknown). */
export const FileStatus = z.object({ id: z.string().optional(), kind: ItemKind.optional(), result: FileResult, at: z.string(), error: z.string().optional() });
export type FileStatus = z.infer<typeof FileStatus>;

export const PollerStatus = z.object({
  lastPollAt: z.string().optional(),
  /** End of the last completed pull run (ms): everything that started before it is archived. */
  position: z.number().optional(),
  eventsArchived: z.number(),
  lastError: z.string().optional(),
});
export type PollerStatus = z.infer<typeof PollerStatus>;

const GitInfoJson = z.object({
  commit: z.string().nullable(),
  shortCommit: z.string().nullable(),
  branch: z.string().optional(),
  dirty: z.boolean(),
  dir: z.string().optional(),
  root: z.string().optional(),
});

/** Following a repository: which commit is live, which was fetched but not applied, and why. */
export const SourceStatusJson = z.object({
  env: z.string(),
  repo: z.string(),
  follow: z.string(),
  path: z.string(),
  live: Revision.extend({ fetchedAt: z.string(), appliedAt: z.string() }).nullable(),
  /** `refused`: why the operator's --allow-target list forbids this commit (it is never applied then). */
  pending: Revision.extend({ fetchedAt: z.string(), error: z.string().nullable(), invalid: z.array(z.string()), refused: z.array(z.string()) }).nullable(),
  lastFetch: z.object({ at: z.string(), ok: z.boolean(), error: z.string().optional() }).nullable(),
  lastSuccessfulFetchAt: z.string().nullable(),
  stale: z.boolean(),
  staleReasons: z.array(z.string()),
});
export type SourceStatusJson = z.infer<typeof SourceStatusJson>;

const KindCounts = z.object({ files: z.number(), drifted: z.number(), orphans: z.number() });
export type KindCounts = z.infer<typeof KindCounts>;

/** One reconcile loop: one target, or one environment. */
export const LoopStatusJson = z.object({
  git: GitInfoJson.nullable(),
  source: SourceStatusJson.optional(),
  lastReconcile: z.object({ at: z.string(), full: z.boolean(), durationMs: z.number(), ok: z.boolean(), error: z.string().optional() }).nullable(),
  driftCount: z.number(),
  drifted: z.array(z.string()),
  files: z.record(z.string(), FileStatus),
  /** Files past the first 2,000 `/status` lists (status-bound.ts): counted, not listed. */
  filesNotListed: z.number().optional(),
  invalid: z.array(z.object({ file: z.string(), errors: z.array(z.string()) })),
  invalidNotListed: z.number().optional(),
  /** Owned live dashboards no file claims (found by the last full pass; pruned only with --prune). */
  orphans: z.array(z.object({ id: z.string(), name: z.string(), kind: ItemKind })),
  /** Per kind: its valid files, those left drifted, its orphans (the lists above, counted). */
  kinds: z.object({ dashboard: KindCounts, document: KindCounts }),
  poller: PollerStatus.extend({ positionTime: z.string().optional(), lagSeconds: z.number().optional() }),
});
export type LoopStatusJson = z.infer<typeof LoopStatusJson>;

const Process = { startedAt: z.string(), alive: z.boolean() };

/** A daemon without environments: one loop, its fields at the top level (the shape from before environments). */
export const SingleStatusJson = LoopStatusJson.extend(Process);
export type SingleStatusJson = z.infer<typeof SingleStatusJson>;

export const EnvironmentStatusJson = LoopStatusJson.extend({
  name: z.string(),
  group: z.string().nullable(),
  /** Where it reconciles into: an environment URL, or the embedded API's `…/e/<name>`. */
  target: z.string(),
  /** Why this environment is not in sync, or may not be (empty when it is). */
  stale: z.array(z.string()),
});
export type EnvironmentStatusJson = z.infer<typeof EnvironmentStatusJson>;

export const EnvironmentsStatusJson = z.object({ ...Process, environments: z.array(EnvironmentStatusJson) });
export type EnvironmentsStatusJson = z.infer<typeof EnvironmentsStatusJson>;

export const DaemonStatusJson = z.union([EnvironmentsStatusJson, SingleStatusJson]);
export type DaemonStatusJson = z.infer<typeof DaemonStatusJson>;

/** `/healthz`: stale (the last good state is live, something newer is not) is still 200; unavailable is 503. */
export const HealthJson = z.union([
  z.object({ status: z.literal('ok') }),
  z.object({ status: z.literal('stale'), stale: z.array(z.string()) }),
  z.object({ status: z.literal('unavailable') }),
]);
export type HealthJson = z.infer<typeof HealthJson>;

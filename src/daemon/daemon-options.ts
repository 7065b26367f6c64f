import type { RetryPolicy } from '../client/api-client.js';
import type { TargetOrigin } from '../client/messages.js';
import type { PlatformCredential } from '../client/platform-auth.js';
import type { Environment } from '../environments/environment.js';
import type { Logger } from '../lib/logger.js';
import type { RepoOptions } from './daemon-repo.js';
import type { Since } from '../archive/pull-plan.js';

// What `dashcd daemon` is started with and what it reports when ready: apart from daemon.ts, which composes the
// daemon, so the parts it composes (the endpoint) can read the options without importing their composer.

export interface DaemonOptions {
  dir: string;
  cwd: string;
  archiveDir: string;
  dataDir: string;
  /**
   * A remote environment (with its Document service when a platform credential is set, and `origin`: the flag or
   * variables its URL and token came from, as its errors name them); without it the daemon serves the embedded API
   * on `listen` and reconciles into it.
   */
  target?: { baseUrl: string; token: string; platform?: DaemonPlatform | undefined; origin?: TargetOrigin | undefined } | undefined;
  /**
   * The environments of dashcd.yaml to reconcile, each into its own target (`target` is then unused): one loop
   * each, with its own queue, resync timer, events archive folder and status. Undefined: one loop into `target`.
   */
  environments?: readonly DaemonEnvironment[] | undefined;
  listen: { host: string; port: number };
  resyncMs: number;
  pollMs: number;
  since: Since;
  selfHeal: boolean;
  /** Delete owned orphans; undefined: `prune` in dashcd.yaml decides. */
  prune: boolean | undefined;
  /**
   * undefined: `maxDelete` in dashcd.yaml, else 5. With `repo`, also the most a commit's dashcd.yaml may set (5 when
   * undefined): the operator bounds what a committer may delete (repository-limits.ts).
   */
  maxDelete: number | undefined;
  /**
   * `--ownership-tag`, with `repo` only: the one ownership tag a commit's dashcd.yaml may have, since prune deletes
   * what carries it (undefined: the built-in one). Without `repo` dashcd.yaml is the operator's own and decides.
   */
  ownershipTag?: string | undefined;
  concurrency: number;
  /** Files per chunk of a large full pass (DASHCD_PASS_CHUNK_FILES); default PASS_CHUNK_FILES. */
  passChunkFiles?: number;
  simulateEvents: boolean;
  /** Follow a git repository instead of watching `dir`: each pass reads a clean checkout of the fetched commit. */
  repo?: RepoOptions;
  /** A remote environment's token (from the variable its `tokenEnv` names); throws when it is unset. */
  tokenFor?(environment: Environment): string;
  /** A remote environment's Document service (its platform settings and the variables they name); none when unset. */
  platformFor?(environment: Environment): DaemonPlatform | undefined;
  /** What to set when `platformFor` gives none: a document file's failure says it. */
  noPlatformFor?(environment: Environment): string | undefined;
  /** The client's per-request retry policy (e.g. a shorter deadline from DASHCD_RETRY_DEADLINE). */
  retry?: Partial<RetryPolicy>;
  /** How long shutdown lets a running pass finish its writes before aborting its requests (default 3 s). */
  shutdownGraceMs?: number;
  log: Logger;
  /** Aborting it shuts the daemon down. */
  signal: AbortSignal;
  onReady?(info: DaemonReady): void;
}

export interface DaemonEnvironment {
  environment: Environment;
  /** Its target; a remote one with the token its `tokenEnv` variable holds (and its platform, when it has one). */
  target: { kind: 'remote'; baseUrl: string; token: string; platform?: DaemonPlatform | undefined; noPlatform?: string | undefined } | { kind: 'embedded' };
}

/**
 * Where a remote target's Document service is and its credential: without one, the daemon reconciles classic
 * dashboards only and a document file fails its pass, saying what to set. The embedded API always has one.
 */
export interface DaemonPlatform {
  url: string;
  credential: PlatformCredential;
  /** The settings its failures name (default: DT_PLATFORM_URL and DT_PLATFORM_TOKEN). */
  origin?: TargetOrigin | undefined;
}

export interface DaemonReady {
  statusUrl: string;
  /** Present when the daemon serves the embedded API. `token` is valid until the daemon stops. */
  api?: { url: string; envUrl: string; token: string };
  target: string;
}

import { stat } from 'node:fs/promises';
import { systemClock, type Clock } from '../lib/clock.js';
import { mkdirDurable } from '../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import type { Logger } from '../lib/logger.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../schema/ids.js';
import { openTokenStore, type TokenStore } from './auth/token-store.js';
import { listEnvironments, type DataDirLayout } from './data-dir.js';
import { openDashboardStore, type DashboardStore } from './store/dashboard-store.js';
import { StoreError } from './store/store-error.js';

/** What an environment may own besides dashboards and tokens (the events store): opened and closed with it. */
export interface EnvironmentService {
  close(): Promise<void>;
}

export interface Environment<E extends EnvironmentService = EnvironmentService> {
  readonly id: EnvironmentId;
  readonly dashboards: DashboardStore;
  readonly tokens: TokenStore;
  readonly events: E | undefined;
}

export interface EnvironmentRegistryOptions<E extends EnvironmentService> {
  readonly layout: DataDirLayout;
  readonly log: Logger;
  readonly fs?: FsLayer;
  readonly clock?: Clock;
  readonly randomUUID?: () => string;
  /** Opens the environment's events store in `dir`; absent while the server runs without an events feed. */
  readonly openEvents?: (env: EnvironmentId, dir: string) => Promise<E>;
  /** Each environment's dashboard store's budget for GET bodies kept uncompressed (served-bytes.ts). */
  readonly hotBytes?: number;
  /**
   * Open (and create) the default environment `local` at start; default true. A daemon whose dashcd.yaml declares
   * environments never uses it: it is then opened only if it is already on disk.
   */
  readonly openDefault?: boolean;
}

export interface EnvironmentRegistry<E extends EnvironmentService = EnvironmentService> {
  /** An environment already open: the per-request fast path. */
  get(env: EnvironmentId): Environment<E> | undefined;
  /**
   * An open environment by a raw, unvalidated path segment: only valid ids are ever opened, so a hit needs no
   * validation and a miss costs one Map lookup.
   */
  lookup(raw: string): Environment<E> | undefined;
  /** Also opens one that appeared on disk while running (e.g. `token create --env new`); undefined if none. */
  find(env: EnvironmentId): Promise<Environment<E> | undefined>;
  /** Opens the environment, creating its directory when it does not exist yet. */
  ensure(env: EnvironmentId): Promise<Environment<E>>;
  ids(): EnvironmentId[];
  /** Refuses new environments and closes every store, letting writes in flight finish. */
  close(): Promise<void>;
}

/** Opens `local` (unless `openDefault` is false and it is not on disk) and every environment found in the data dir. */
export async function openEnvironments<E extends EnvironmentService = EnvironmentService>(
  options: EnvironmentRegistryOptions<E>,
): Promise<EnvironmentRegistry<E>> {
  const { layout, fs = nodeFs } = options;
  const open = new Map<string, Environment<E>>();
  const opening = new Map<EnvironmentId, Promise<Environment<E>>>();
  let closed = false;

  const load = (env: EnvironmentId): Promise<Environment<E>> => {
    if (closed) return Promise.reject(new StoreError('STORE_CLOSED', 'The server is shutting down.'));
    const existing = opening.get(env);
    if (existing) return existing;
    const pending = openEnvironment(env, options).then((environment) => {
      open.set(env, environment);
      return environment;
    });
    opening.set(env, pending);
    pending.catch(() => opening.delete(env));
    return pending;
  };

  const registry: EnvironmentRegistry<E> = {
    get: (env) => open.get(env),
    lookup: (raw) => open.get(raw),
    async find(env) {
      const known = open.get(env);
      if (known) return known;
      const exists = await stat(layout.envDir(env)).then((s) => s.isDirectory(), () => false);
      return exists ? load(env) : undefined;
    },
    async ensure(env) {
      const known = open.get(env);
      if (known) return known;
      await mkdirDurable(layout.envDir(env), fs);
      return load(env);
    },
    ids: () => [...open.values()].map((environment) => environment.id).sort(),
    async close() {
      closed = true;
      const all = await Promise.allSettled(opening.values());
      await Promise.all(all.map((result) => (result.status === 'fulfilled' ? closeEnvironment(result.value) : undefined)));
    },
  };
  for (const env of await listEnvironments(layout.root, { withDefault: options.openDefault ?? true })) {
    await (env === DEFAULT_ENVIRONMENT ? registry.ensure(env) : load(env));
  }
  return registry;
}

async function openEnvironment<E extends EnvironmentService>(
  env: EnvironmentId,
  { layout, log, fs, clock = systemClock, randomUUID, openEvents, hotBytes }: EnvironmentRegistryOptions<E>,
): Promise<Environment<E>> {
  const envLog = log.child({ env });
  const tokens = await openTokenStore({ file: layout.tokensFile(env), clock, fs });
  const dashboards = await openDashboardStore({
    dir: layout.dashboardsDir(env),
    log: envLog.child({ component: 'dashboard-store' }),
    clock,
    fs,
    randomUUID,
    ...(hotBytes !== undefined ? { hotBytes } : {}),
  });
  try {
    const events = openEvents ? await openEvents(env, layout.eventsDir(env)) : undefined;
    return { id: env, dashboards, tokens, events };
  } catch (error) {
    await dashboards.close();
    throw error;
  }
}

async function closeEnvironment(environment: Environment<EnvironmentService>): Promise<void> {
  await Promise.all([environment.dashboards.close(), environment.events?.close()]);
}

import type { Follow } from '../source/follow.js';
import { platformUrlOf, tokenUrlOf } from '../lib/platform-url.js';
import { mergeDeep } from './deep-merge.js';
import { groupValues, membersOf, type EnvironmentSpec, type EnvironmentsConfig, type Values } from './environments-config.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

/** Where a platform credential comes from: the variables holding it, and where an OAuth client trades its secret. */
export type PlatformCredentialSource =
  | { kind: 'platform-token'; tokenEnv: string }
  | { kind: 'oauth-client'; clientIdEnv: string; clientSecretEnv: string; tokenUrl: string };

/** A real environment's Document service: its platform URL (given, or derived from the target) and credential. */
export interface PlatformTarget {
  url: string;
  credential: PlatformCredentialSource;
  /** The URL came from `target` (no `platformTarget` written): messages then say so, not "set platformTarget". */
  derived: boolean;
}

/**
 * Where an environment's dashboards live: a real environment, or `/e/<name>` of the embedded API. A real one has a
 * platform when dashcd.yaml names a platform credential for it; an embedded one always has the embedded server's.
 */
export type EnvironmentTarget = { kind: 'embedded' } | { kind: 'remote'; url: string; tokenEnv: string; platform?: PlatformTarget };

/**
 * One environment as the later stages use it: a plain value (never a global), so plan, apply and the daemon run one
 * loop per environment, and a source revision per environment can be added beside it.
 */
export interface Environment {
  readonly name: string;
  readonly target: EnvironmentTarget;
  /** The group it belongs to (at most one), null when none. */
  readonly group: string | null;
  /** Defaults, then the group's, then its own: the most specific wins, objects merged deeply. */
  readonly values: Values;
  /** The branch or tags `daemon --repo` follows for it; absent: the daemon's own --branch/--tag-pattern. */
  readonly source?: Follow;
}

/**
 * Where a remote environment's target and token come from, as messages name them ("prod's target in dashcd.yaml",
 * its `tokenEnv`): a failure then says which entry to fix, not DT_ENV_URL, which was not read.
 */
export function remoteTargetOrigin(environment: Pick<Environment, 'name'>, target: { tokenEnv: string }): { url: string; token: string } {
  return { url: `${environment.name}'s target in dashcd.yaml`, token: target.tokenEnv };
}

/** Every declared environment in declaration order; empty when the repository declares none. */
export function declaredEnvironments(config: EnvironmentsConfig): Environment[] {
  const groups = Object.entries(config.groups ?? {});
  return Object.entries(config.environments ?? {}).map(([name, spec]) => {
    const found = groups.find(([, group]) => membersOf(group).includes(name));
    const layers = [config.values, found ? groupValues(found[1]) : undefined, spec.values];
    const values = layers.reduce<unknown>((merged, layer) => mergeDeep(merged, layer ?? {}), {}) as Values;
    const platform = spec.target === undefined ? undefined : platformTarget(spec, spec.target);
    const target: EnvironmentTarget =
      spec.target !== undefined && spec.tokenEnv !== undefined
        ? { kind: 'remote', url: withoutTrailingSlashes(spec.target), tokenEnv: spec.tokenEnv, ...(platform ? { platform } : {}) }
        : { kind: 'embedded' };
    return { name, target, group: found ? found[0] : null, values, ...(spec.source ? { source: spec.source } : {}) };
  });
}

/** The platform of a validated spec (environments-config.ts refuses what this could not complete); none without a credential. */
function platformTarget(spec: EnvironmentSpec, target: string): PlatformTarget | undefined {
  const url = spec.platformTarget === undefined ? platformUrlOf(target) : withoutTrailingSlashes(spec.platformTarget);
  if (url === undefined) return undefined;
  const derived = spec.platformTarget === undefined;
  if (spec.platformTokenEnv !== undefined) return { url, credential: { kind: 'platform-token', tokenEnv: spec.platformTokenEnv }, derived };
  const tokenUrl = spec.oauthTokenUrl ?? tokenUrlOf(url);
  if (spec.oauthClientIdEnv === undefined || spec.oauthClientSecretEnv === undefined || tokenUrl === undefined) return undefined;
  return { url, credential: { kind: 'oauth-client', clientIdEnv: spec.oauthClientIdEnv, clientSecretEnv: spec.oauthClientSecretEnv, tokenUrl }, derived };
}

/** Where a value layer lives in dashcd.yaml, most specific first: the environment's, its group's, the defaults. */
export function valueLayers(config: EnvironmentsConfig, env: Environment): { path: string[]; values: Values | undefined }[] {
  const own = { path: ['environments', env.name, 'values'], values: config.environments?.[env.name]?.values };
  const defaults = { path: ['values'], values: config.values };
  const name = env.group;
  if (name === null) return [own, defaults];
  const group = config.groups?.[name];
  return group === undefined ? [own, defaults] : [own, { path: ['groups', name, 'values'], values: groupValues(group) }, defaults];
}

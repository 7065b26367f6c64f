import type { Follow } from '../source/follow.js';
import { mergeDeep } from './deep-merge.js';
import { groupValues, membersOf, type EnvironmentsConfig, type Values } from './environments-config.js';

/** Where an environment's dashboards live: a real environment, or `/e/<name>` of the embedded API. */
export type EnvironmentTarget = { kind: 'embedded' } | { kind: 'remote'; url: string; tokenEnv: string };

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

/** Every declared environment in declaration order; empty when the repository declares none. */
export function declaredEnvironments(config: EnvironmentsConfig): Environment[] {
  const groups = Object.entries(config.groups ?? {});
  return Object.entries(config.environments ?? {}).map(([name, spec]) => {
    const found = groups.find(([, group]) => membersOf(group).includes(name));
    const layers = [config.values, found ? groupValues(found[1]) : undefined, spec.values];
    const values = layers.reduce<unknown>((merged, layer) => mergeDeep(merged, layer ?? {}), {}) as Values;
    const target: EnvironmentTarget =
      spec.target !== undefined && spec.tokenEnv !== undefined ? { kind: 'remote', url: spec.target.replace(/\/+$/, ''), tokenEnv: spec.tokenEnv } : { kind: 'embedded' };
    return { name, target, group: found ? found[0] : null, values, ...(spec.source ? { source: spec.source } : {}) };
  });
}

/** Where a value layer lives in dashcd.yaml, most specific first: the environment's, its group's, the defaults. */
export function valueLayers(config: EnvironmentsConfig, env: Environment): { path: string[]; values: Values | undefined }[] {
  const group = env.group === null ? undefined : config.groups?.[env.group];
  return [
    { path: ['environments', env.name, 'values'], values: config.environments?.[env.name]?.values },
    ...(group !== undefined && env.group !== null ? [{ path: ['groups', env.group, 'values'], values: groupValues(group) }] : []),
    { path: ['values'], values: config.values },
  ];
}

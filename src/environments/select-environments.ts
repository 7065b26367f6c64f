import { closest } from '../lib/closest.js';
import type { Environment } from './environment.js';
import { listedNames } from '../lib/quoted.js';

export interface EnvironmentChoice {
  /** `--env` values: environment or group names, in any order, repeats allowed. */
  names: readonly string[];
  allEnvs: boolean;
}

export type EnvironmentSelection =
  /** The repository declares no environments: one target, as before environments existed. */
  | { kind: 'single' }
  /** `chosen` is false when neither `--env` nor `--all-envs` was given: plan covers all, apply must refuse. */
  | { kind: 'environments'; environments: Environment[]; chosen: boolean }
  | { kind: 'error'; message: string };

/**
 * Resolves `--env`/`--all-envs` against the declared environments. A group name stands for its members; the result
 * keeps declaration order and names each environment once, however it was chosen.
 */
export function selectEnvironments(declared: readonly Environment[], choice: EnvironmentChoice): EnvironmentSelection {
  const asked = choice.names.length > 0;
  if (declared.length === 0) {
    if (!asked && !choice.allEnvs) return { kind: 'single' };
    return { kind: 'error', message: `${asked ? '--env' : '--all-envs'} needs environments: declare them under environments: in dashcd.yaml` };
  }
  if (asked && choice.allEnvs) return { kind: 'error', message: '--env and --all-envs exclude each other: choose some environments or all of them' };
  if (!asked) return { kind: 'environments', environments: [...declared], chosen: choice.allEnvs };
  const groups = new Set(declared.flatMap((e) => (e.group === null ? [] : [e.group])));
  const wanted = new Set<string>();
  for (const name of choice.names) {
    if (groups.has(name)) declared.filter((e) => e.group === name).forEach((e) => wanted.add(e.name));
    else if (declared.some((e) => e.name === name)) wanted.add(name);
    else return { kind: 'error', message: unknownMessage(name, declared, [...groups]) };
  }
  return { kind: 'environments', environments: declared.filter((e) => wanted.has(e.name)), chosen: true };
}

/** `unknown environment prd — did you mean prod? (environments: dev, staging, prod; groups: production)` */
function unknownMessage(name: string, declared: readonly Environment[], groups: readonly string[]): string {
  const names = declared.map((e) => e.name);
  const hint = closest(name, [...names, ...groups]);
  const listed = `environments: ${listedNames(names)}${groups.length > 0 ? `; groups: ${listedNames(groups)}` : ''}`;
  return `unknown environment ${name}${hint ? ` — did you mean ${hint}?` : ''} (${listed})`;
}

/** The list apply prints when no environment was chosen, one per line with where it goes. */
export function describeEnvironments(environments: readonly Environment[]): string[] {
  const names = environments.map((e) => `${e.name}${e.group !== null ? ` (group ${e.group})` : ''}`);
  // One column for the targets, as a table reads.
  const width = Math.max(0, ...names.map((name) => name.length));
  return environments.map((e, i) => {
    const where = e.target.kind === 'remote' ? e.target.url : `embedded /e/${e.name}`;
    return `  ${(names[i] ?? '').padEnd(width)}  ${where}`;
  });
}

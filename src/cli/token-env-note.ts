import { closest } from './parse-args.js';
import { projectEmbeddedEnvironments } from './project-environments.js';

/** The token command a note is for: each says what it did in `env` and how to do it for the project's environments. */
export type TokenCommand = 'create' | 'list' | 'revoke';

const DID: Record<TokenCommand, (env: string) => string> = {
  create: (env) => `this token is for environment ${env} (/e/${env}) only`,
  list: (env) => `these are the tokens of environment ${env} (/e/${env}) only`,
  revoke: (env) => `that token was one of environment ${env} (/e/${env})`,
};
const FOR_THEM: Record<TokenCommand, string> = { create: 'make one for them', list: 'list theirs', revoke: 'revoke theirs' };

/**
 * A line for stderr when a token command acts on an environment the project in `cwd` does not use: `token create` in
 * the sample project without `--env` made a `local` token that every declared environment (`/e/dev`, …) answered with
 * 401, and `token list`/`revoke` without `--env` looked in `local` only. Undefined when no note is due.
 */
export async function tokenEnvironmentNote(env: string, cwd: string, command: TokenCommand = 'create'): Promise<string | undefined> {
  const others = await unusedByProject(env, cwd);
  return others && `note: ${DID[command](env)}; dashcd.yaml here declares ${others.join(', ')}: ${FOR_THEM[command]} with --env NAME\n`;
}

/**
 * How `token revoke` continues "no token … in environment <env>": the other environments of the data dir that
 * `hold` one of that id or name (found there, so naming them is no guess), else the project's environments to choose
 * from, else where to look.
 */
export async function revokeMissHint(env: string, cwd: string, hold: readonly string[]): Promise<string> {
  if (hold.length > 0) return `; ${hold.join(', ')} ${hold.length === 1 ? 'has' : 'have'} one: revoke it with --env ${hold.length === 1 ? (hold[0] ?? '') : 'NAME'}`;
  const others = await unusedByProject(env, cwd);
  if (others) return `; dashcd.yaml here declares ${others.join(', ')}: choose one with --env NAME (see 'dashcd token list --env NAME')`;
  return ` (see 'dashcd token list --env ${env}')`;
}

/**
 * A name one edit (a letter added, dropped, changed, or two swapped) from an environment the project `declares`
 * (projectEmbeddedEnvironments), that neither it nor the data dir (`held`) has: a typo (`--env prdo`), which would
 * create an environment nothing serves and a token that fails where it was meant. Undefined for any other name (`qa`
 * beside `dev` is meant): a data dir may serve environments no project declares.
 */
export function misspeltEnvironment(env: string, declared: readonly string[], held: readonly string[]): string | undefined {
  if (held.includes(env) || declared.includes(env)) return undefined;
  const near = closest(env, declared, 1);
  return near && `unknown environment ${env} — did you mean ${near}? (dashcd.yaml here declares ${declared.join(', ')})`;
}

/**
 * A new name one letter from an environment the data dir has, where dashcd.yaml does not declare it: nothing tells it
 * from a typo, so it is said, not refused (a data dir may serve any name); a declared one is meant (eu2 beside eu1).
 */
export function nearHeldEnvironment(env: string, declared: readonly string[], held: readonly string[]): string | undefined {
  if (held.includes(env) || declared.includes(env)) return undefined;
  return closest(env, held, 1);
}

/** The embedded environments the project in `cwd` declares, when it declares some and `env` is none of them. */
async function unusedByProject(env: string, cwd: string): Promise<string[] | undefined> {
  const embedded = await projectEmbeddedEnvironments(cwd);
  return embedded.length === 0 || embedded.includes(env) ? undefined : embedded;
}

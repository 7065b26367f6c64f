import { z } from 'zod';
import { followProblem } from '../source/follow.js';

/**
 * The `environments:`, `groups:` and `values:` members of `dashcd.yaml`. An environment is a name, where it lives
 * (a target URL, or none: the embedded API's `/e/<name>`), the name of the variable holding its token, and values.
 * Names become folders (`events-archive/<env>/`), metric labels and embedded environment ids, hence the alphabet.
 */
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const NAME_RULE = 'an environment or group name is lowercase letters, digits and dashes (at most 63)';
export const EnvironmentName = z.string().regex(NAME, NAME_RULE);

/** Top-level value names are referenced as `values.NAME`; members below them may be any key. */
const ValueName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'a value name is letters, digits, `_` and `-`, not starting with a digit');

/** The real service's classic token shape; tested anywhere in the config so a pasted token is refused, not stored. */
export const TOKEN_SHAPED = /dt0[a-z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}/i;
const TOKEN_REFUSED = 'looks like an API token: never put a token in a file; put it in an environment variable (a CI secret) and name that variable in tokenEnv';

export const Values = z.record(ValueName, z.unknown()).superRefine((values, ctx) => {
  for (const { path, text } of strings(values, [])) {
    if (TOKEN_SHAPED.test(text)) ctx.addIssue({ code: 'custom', path, message: TOKEN_REFUSED });
  }
});
export type Values = Record<string, unknown>;

/**
 * The variable's name, never its value: anything else may be the secret itself, pasted, so the message never echoes
 * it (it would reach CI logs) and says to replace a token that was committed.
 */
const TokenEnv = z.string().superRefine((name, ctx) => {
  if (TOKEN_SHAPED.test(name) || /^dt0[a-z][0-9]{2}\./i.test(name)) ctx.addIssue({ code: 'custom', message: TOKEN_REFUSED });
  else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    ctx.addIssue({
      code: 'custom',
      message: `tokenEnv is the name of an environment variable (letters, digits and _, e.g. PROD_DT_API_TOKEN); this value (${name.length} characters, not shown) is not one. If it is a token, it is now in the file: revoke it and make a new one`,
    });
  }
});

const TargetUrl = z.string().superRefine((raw, ctx) => {
  const problem = targetUrlProblem(raw);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * What `dashcd daemon --repo` follows for this environment: a branch's head, or the highest-versioned tag matching
 * a glob. Absent: what --branch/--tag-pattern say. Promotion is then a git operation (merge, tag).
 */
export const SourceSpec = z
  .union([z.strictObject({ branch: z.string() }), z.strictObject({ tagPattern: z.string() })], { error: 'source is { branch: NAME } or { tagPattern: GLOB }' })
  .superRefine((follow, ctx) => {
    const problem = followProblem(follow);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.replace(/^--(branch|tag-pattern)/, (_, what: string) => (what === 'branch' ? 'branch' : 'tagPattern')) });
  });

export const EnvironmentSpec = z
  .strictObject({
    /** Absent: an environment of the embedded API (`/e/<name>`), so the whole flow runs on a laptop and in CI. */
    target: TargetUrl.optional(),
    tokenEnv: TokenEnv.optional(),
    values: Values.optional(),
    source: SourceSpec.optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.target !== undefined && spec.tokenEnv === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenEnv'], message: 'an environment with a target needs tokenEnv: the name of the variable that holds its token' });
    }
    if (spec.target === undefined && spec.tokenEnv !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['tokenEnv'], message: 'tokenEnv without a target: an embedded environment needs no token (add target: URL for a real one)' });
    }
  });
export type EnvironmentSpec = z.output<typeof EnvironmentSpec>;

/** `production: [prod-eu, prod-us]`, or with values: `production: { environments: [...], values: {...} }`. */
export const GroupSpec = z.union([
  z.array(EnvironmentName).min(1),
  z.strictObject({ environments: z.array(EnvironmentName).min(1), values: Values.optional() }),
]);
export type GroupSpec = z.output<typeof GroupSpec>;

/** Members spread into the ProjectConfig schema; all optional, so a repository without them works as before. */
export const environmentsShape = {
  /** `dev:` alone (no members) is an embedded environment. */
  // Names are checked in checkEnvironmentsConfig, where the message can say what a name may be.
  environments: z.record(z.string(), EnvironmentSpec.nullable().transform((spec) => spec ?? {})).optional(),
  groups: z.record(z.string(), GroupSpec).optional(),
  /** Defaults; a group's values override them, an environment's override both. */
  values: Values.optional(),
};

export interface EnvironmentsConfig {
  environments?: Record<string, EnvironmentSpec> | undefined;
  groups?: Record<string, GroupSpec> | undefined;
  values?: Values | undefined;
}

/** Cross-member rules: groups name declared environments, each environment in at most one group, no name twice. */
export function checkEnvironmentsConfig(config: EnvironmentsConfig, ctx: z.core.$RefinementCtx): void {
  const declared = config.environments ?? {};
  if (config.environments === undefined) {
    for (const key of ['groups', 'values'] as const) {
      if (config[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} need environments: declare them in this file first` });
    }
    return;
  }
  if (Object.keys(declared).length === 0) ctx.addIssue({ code: 'custom', path: ['environments'], message: 'declare at least one environment, or remove environments:' });
  for (const key of ['environments', 'groups'] as const) {
    for (const name of Object.keys(config[key] ?? {})) if (!NAME.test(name)) ctx.addIssue({ code: 'custom', path: [key, name], message: `${NAME_RULE}, got ${JSON.stringify(name)}` });
  }
  const groupOf = new Map<string, string>();
  for (const [group, spec] of Object.entries(config.groups ?? {})) {
    const base = Array.isArray(spec) ? ['groups', group] : ['groups', group, 'environments'];
    if (Object.hasOwn(declared, group)) ctx.addIssue({ code: 'custom', path: ['groups', group], message: `${group} is already an environment's name; a group needs its own name` });
    membersOf(spec).forEach((env, i) => {
      const problem = !Object.hasOwn(declared, env)
        ? `unknown environment ${env} (declared: ${Object.keys(declared).join(', ')})`
        : groupOf.has(env)
          ? `${env} is already in group ${groupOf.get(env) ?? ''}: an environment belongs to at most one group, so its values have one order`
          : undefined;
      if (problem) ctx.addIssue({ code: 'custom', path: [...base, i], message: problem });
      else groupOf.set(env, group);
    });
  }
}

export function membersOf(spec: GroupSpec): string[] {
  return Array.isArray(spec) ? spec : spec.environments;
}

export function groupValues(spec: GroupSpec): Values | undefined {
  return Array.isArray(spec) ? undefined : spec.values;
}

/** Accepts an environment root over http(s) without credentials or query, the rule `--target` applies. */
export function targetUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `not a URL: ${JSON.stringify(raw)} (expected e.g. https://abc123.live.dynatrace.com)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the target must be http or https';
  if (url.search || url.username || url.password) return 'the target URL must not carry credentials or a query; name the token variable in tokenEnv';
  return undefined;
}

function* strings(value: unknown, path: (string | number)[]): Generator<{ path: (string | number)[]; text: string }> {
  if (typeof value === 'string') yield { path, text: value };
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, [...path, i]);
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) yield* strings(item, [...path, key]);
}

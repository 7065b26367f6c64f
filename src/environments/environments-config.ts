import { z } from 'zod';
import { platformUrlOf, tokenUrlOf } from '../lib/platform-url.js';
import { followProblem } from '../source/follow.js';
import { excerpt, listedNames, quoted } from '../lib/quoted.js';

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
 * A variable's name, never its value: anything else may be the secret itself, pasted, so the message never echoes
 * it (it would reach CI logs) and says to replace a token that was committed. `key` and `example` name the member.
 */
const variableName = (key: string, example: string) =>
  z.string().superRefine((name, ctx) => {
    if (TOKEN_SHAPED.test(name) || /^dt0[a-z][0-9]{2}\./i.test(name)) ctx.addIssue({ code: 'custom', message: TOKEN_REFUSED.replace('tokenEnv', key) });
    else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      ctx.addIssue({
        code: 'custom',
        message: `${key} is the name of an environment variable (letters, digits and _, e.g. ${example}); this value (${name.length} characters, not shown) is not one. If it is a token, it is now in the file: revoke it and make a new one`,
      });
    }
  });

const targetUrl = (tokenKey: string) =>
  z.string().superRefine((raw, ctx) => {
    const problem = targetUrlProblem(raw, tokenKey);
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
    // Stryker disable next-line Regex: followProblem's message starts with the option, so its first match is at the start anyway
    if (problem) ctx.addIssue({ code: 'custom', message: problem.replace(/^--(branch|tag-pattern)/, (_, what: string) => (what === 'branch' ? 'branch' : 'tagPattern')) });
  });

export const EnvironmentSpec = z
  .strictObject({
    /** Absent: an environment of the embedded API (`/e/<name>`), so the whole flow runs on a laptop and in CI. */
    target: targetUrl('tokenEnv').optional(),
    tokenEnv: variableName('tokenEnv', 'PROD_DT_API_TOKEN').optional(),
    /**
     * The Document service's host (`https://<id>.apps.dynatrace.com`), where it is not derived from `target` (see
     * lib/platform-url.ts), and its credential: a platform token's variable, or an OAuth client's two variables (and
     * its token endpoint where that is not derived either). All absent: the environment has no platform.
     */
    platformTarget: targetUrl('platformTokenEnv').optional(),
    platformTokenEnv: variableName('platformTokenEnv', 'PROD_DT_PLATFORM_TOKEN').optional(),
    oauthClientIdEnv: variableName('oauthClientIdEnv', 'PROD_DT_CLIENT_ID').optional(),
    oauthClientSecretEnv: variableName('oauthClientSecretEnv', 'PROD_DT_CLIENT_SECRET').optional(),
    oauthTokenUrl: targetUrl('oauthClientSecretEnv').optional(),
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
    for (const problem of platformProblems(spec)) ctx.addIssue({ code: 'custom', ...problem });
  });
export type EnvironmentSpec = z.output<typeof EnvironmentSpec>;

const PLATFORM_KEYS = ['platformTarget', 'platformTokenEnv', 'oauthClientIdEnv', 'oauthClientSecretEnv', 'oauthTokenUrl'] as const;

/** The platform members' rules: one credential, and a platform URL and token endpoint known or derivable. */
function platformProblems(spec: Omit<EnvironmentSpec, 'values' | 'source'>): { path: string[]; message: string }[] {
  const given = PLATFORM_KEYS.filter((key) => spec[key] !== undefined);
  if (given.length === 0) return [];
  if (spec.target === undefined) {
    return given.map((key) => ({ path: [key], message: `${key} without a target: an embedded environment's Document service is the embedded server's (add target: URL for a real one)` }));
  }
  const oauth = spec.oauthClientIdEnv !== undefined || spec.oauthClientSecretEnv !== undefined;
  if (spec.platformTokenEnv !== undefined && oauth) return [{ path: ['platformTokenEnv'], message: 'platformTokenEnv or an OAuth client (oauthClientIdEnv, oauthClientSecretEnv), not both' }];
  if (oauth && (spec.oauthClientIdEnv === undefined || spec.oauthClientSecretEnv === undefined)) {
    const missing = spec.oauthClientIdEnv === undefined ? 'oauthClientIdEnv' : 'oauthClientSecretEnv';
    return [{ path: [missing], message: `an OAuth client needs both oauthClientIdEnv and oauthClientSecretEnv; ${missing} is missing` }];
  }
  if (spec.platformTokenEnv === undefined && !oauth) {
    return [{ path: [given[0] ?? 'platformTarget'], message: 'a platform needs a credential: platformTokenEnv (a platform token), or oauthClientIdEnv and oauthClientSecretEnv (an OAuth client)' }];
  }
  if (spec.oauthTokenUrl !== undefined && !oauth) return [{ path: ['oauthTokenUrl'], message: 'oauthTokenUrl is an OAuth client\'s token endpoint; a platform token needs none' }];
  const platform = spec.platformTarget ?? platformUrlOf(spec.target);
  if (platform === undefined) {
    return [{ path: ['platformTarget'], message: `the platform URL cannot be derived from target ${spec.target} (only <id>.live.dynatrace.com, the sprint/dev stages and dashcd's own server are certain); set platformTarget, e.g. https://abc12345.apps.dynatrace.com` }];
  }
  if (oauth && spec.oauthTokenUrl === undefined && tokenUrlOf(platform) === undefined) {
    return [{ path: ['oauthTokenUrl'], message: `the OAuth token endpoint of ${platform} cannot be derived; set oauthTokenUrl, e.g. https://sso.dynatrace.com/sso/oauth2/token` }];
  }
  return [];
}

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

/** Marks the issue of `values:` or `groups:` without `environments:`: a misspelt `enviroments:` makes it, and says more. */
export const NEEDS_ENVIRONMENTS = 'needsEnvironments';
/** Marks an issue about a member's name, not its value: it is pointed at the name (`Prod_1:`), not at what follows. */
export const ABOUT_THE_NAME = 'aboutTheName';

/** Cross-member rules: groups name declared environments, each environment in at most one group, no name twice. */
export function checkEnvironmentsConfig(config: EnvironmentsConfig, ctx: z.core.$RefinementCtx): void {
  const declared = config.environments ?? {};
  if (config.environments === undefined) {
    for (const key of ['groups', 'values'] as const) {
      if (config[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} need environments: declare them in this file first`, params: { [NEEDS_ENVIRONMENTS]: true } });
    }
    return;
  }
  if (Object.keys(declared).length === 0) ctx.addIssue({ code: 'custom', path: ['environments'], message: 'declare at least one environment, or remove environments:' });
  for (const key of ['environments', 'groups'] as const) {
    for (const name of Object.keys(config[key] ?? {})) if (!NAME.test(name)) ctx.addIssue({ code: 'custom', path: [key, name], message: `${NAME_RULE}, got ${quoted(name)}`, params: { [ABOUT_THE_NAME]: true } });
  }
  const groupOf = new Map<string, string>();
  for (const [group, spec] of Object.entries(config.groups ?? {})) {
    const base = Array.isArray(spec) ? ['groups', group] : ['groups', group, 'environments'];
    if (Object.hasOwn(declared, group)) ctx.addIssue({ code: 'custom', path: ['groups', group], message: `${group} is already an environment's name; a group needs its own name`, params: { [ABOUT_THE_NAME]: true } });
    membersOf(spec).forEach((env, i) => {
      const other = groupOf.get(env);
      const problem = !Object.hasOwn(declared, env)
        ? `unknown environment ${excerpt(env)} (declared: ${listedNames(Object.keys(declared))})`
        : other !== undefined
          ? `${env} is already in group ${other}: an environment belongs to at most one group, so its values have one order`
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

/** Longer than any real environment's URL (browsers and proxies start refusing past about 2,000). */
const MAX_TARGET_URL_CHARS = 2048;

/**
 * Accepts an environment root over http(s) without credentials or query, the rule `--target` applies; `tokenKey`
 * names the member a credential belongs in instead.
 */
export function targetUrlProblem(raw: string, tokenKey = 'tokenEnv'): string | undefined {
  // A committer's text: quoted in the problem, and parsed by every step after this one.
  if (raw.length > MAX_TARGET_URL_CHARS) return `a URL of ${raw.length} characters; a target's is at most ${MAX_TARGET_URL_CHARS}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `not a URL: ${quoted(raw)} (expected e.g. https://abc123.live.dynatrace.com)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the target must be http or https';
  if (url.search || url.username || url.password) return `the target URL must not carry credentials or a query; name the secret's variable in ${tokenKey}`;
  return undefined;
}

function* strings(value: unknown, path: (string | number)[]): Generator<{ path: (string | number)[]; text: string }> {
  if (typeof value === 'string') yield { path, text: value };
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, [...path, i]);
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) yield* strings(item, [...path, key]);
}

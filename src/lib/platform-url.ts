import { withoutTrailingSlashes } from './trailing-slashes.js';

/**
 * An environment's platform URL (`https://{id}.apps.dynatrace.com`, where the Document service lives) and its
 * classic one (`https://{id}.live.dynatrace.com`, the config API) are different hosts. Where the pattern is certain
 * one is derived from the other: SaaS production and Dynatrace's own sprint and dev stages (`{id}.sprint.
 * dynatracelabs.com` ↔ `{id}.sprint.apps.dynatracelabs.com`, as Monaco maps them), and dashcd's embedded server,
 * which serves both under one environment root. Managed (`…/e/{id}`) has no platform: nothing is derived.
 */

/** Dynatrace SSO's token endpoint, where OAuth clients of a SaaS environment get their access tokens. */
export const DEFAULT_TOKEN_URL = 'https://sso.dynatrace.com/sso/oauth2/token';

const PAIRS: ReadonlyArray<{
  readonly classic: RegExp;
  readonly platform: RegExp;
  toPlatform(id: string, rest: string): string;
  toClassic(id: string, rest: string): string;
  /** The SSO token endpoint of the stage (the Terraform provider's ProdTokenURL, SprintTokenURL, DevTokenURL). */
  tokenUrl(stage: string): string;
}> = [
  {
    classic: /^([a-z0-9-]+)\.live\.dynatrace\.com$/,
    platform: /^([a-z0-9-]+)\.apps\.dynatrace\.com$/,
    toPlatform: (id) => `${id}.apps.dynatrace.com`,
    toClassic: (id) => `${id}.live.dynatrace.com`,
    tokenUrl: () => DEFAULT_TOKEN_URL,
  },
  {
    classic: /^([a-z0-9-]+)\.(sprint|dev)\.dynatracelabs\.com$/,
    platform: /^([a-z0-9-]+)\.(sprint|dev)\.apps\.dynatracelabs\.com$/,
    toPlatform: (id, stage) => `${id}.${stage}.apps.dynatracelabs.com`,
    toClassic: (id, stage) => `${id}.${stage}.dynatracelabs.com`,
    tokenUrl: (stage) => `https://sso-${stage}.dynatracelabs.com/sso/oauth2/token`,
  },
];

/** The platform URL of a classic environment URL; undefined where the mapping is not certain. */
export function platformUrlOf(classicUrl: string): string | undefined {
  return mapHost(classicUrl, 'toPlatform');
}

/** The classic URL of a platform environment URL; undefined where the mapping is not certain. */
export function classicUrlOf(platformUrl: string): string | undefined {
  return mapHost(platformUrl, 'toClassic');
}

/**
 * The OAuth token endpoint of a platform URL's SSO: Dynatrace SSO for SaaS, `sso-sprint`/`sso-dev` for those stages,
 * the embedded server's own `/sso/oauth2/token` under the environment root; undefined where that is not certain.
 */
export function tokenUrlOf(platformUrl: string): string | undefined {
  const url = parse(platformUrl);
  if (url === undefined) return undefined;
  if (isEmbedded(url)) return `${root(url)}/sso/oauth2/token`;
  const found = knownHost(url, 'platform');
  return found && found.pair.tokenUrl(found.match[2] ?? '');
}

function mapHost(raw: string, direction: 'toPlatform' | 'toClassic'): string | undefined {
  const url = parse(raw);
  if (url === undefined) return undefined;
  if (isEmbedded(url)) return root(url);
  const found = knownHost(url, direction === 'toPlatform' ? 'classic' : 'platform');
  return found && `https://${found.pair[direction](found.match[1] ?? '', found.match[2] ?? '')}${url.port ? `:${url.port}` : ''}`;
}

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

const root = (url: URL): string => `${url.origin}${withoutTrailingSlashes(url.pathname)}`;

/** The SaaS or stage pattern an https environment root (no path) matches, as a classic or a platform host. */
function knownHost(url: URL, side: 'classic' | 'platform'): { pair: (typeof PAIRS)[number]; match: RegExpExecArray } | undefined {
  if (url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  for (const pair of PAIRS) {
    const match = pair[side].exec(url.hostname);
    if (match) return { pair, match };
  }
  return undefined;
}

/** dashcd's own server, on loopback: the classic API and the platform share each environment's root. */
function isEmbedded(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]');
}

/**
 * The platform URL a command talks to: `DT_PLATFORM_URL`, else derived from `DT_ENV_URL` where that is certain;
 * undefined when neither gives one (the caller names both variables in its error).
 */
export function platformUrlFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const explicit = env.DT_PLATFORM_URL?.trim();
  if (explicit) return withoutTrailingSlashes(explicit);
  const classic = env.DT_ENV_URL?.trim();
  return classic ? platformUrlOf(classic) : undefined;
}

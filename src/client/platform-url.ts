/**
 * An environment's platform URL (`https://{id}.apps.dynatrace.com`, where the Document service lives) and its
 * classic one (`https://{id}.live.dynatrace.com`, the config API) are different hosts. Where the pattern is certain
 * one is derived from the other: SaaS production and Dynatrace's own sprint and dev stages (`{id}.sprint.
 * dynatracelabs.com` ↔ `{id}.sprint.apps.dynatracelabs.com`, as Monaco maps them), and dashcd's embedded server,
 * which serves both under one environment root. Managed (`…/e/{id}`) has no platform: nothing is derived.
 */

const PAIRS: ReadonlyArray<{ readonly classic: RegExp; readonly platform: RegExp; toPlatform(id: string, rest: string): string; toClassic(id: string, rest: string): string }> = [
  {
    classic: /^([a-z0-9-]+)\.live\.dynatrace\.com$/,
    platform: /^([a-z0-9-]+)\.apps\.dynatrace\.com$/,
    toPlatform: (id) => `${id}.apps.dynatrace.com`,
    toClassic: (id) => `${id}.live.dynatrace.com`,
  },
  {
    classic: /^([a-z0-9-]+)\.(sprint|dev)\.dynatracelabs\.com$/,
    platform: /^([a-z0-9-]+)\.(sprint|dev)\.apps\.dynatracelabs\.com$/,
    toPlatform: (id, stage) => `${id}.${stage}.apps.dynatracelabs.com`,
    toClassic: (id, stage) => `${id}.${stage}.dynatracelabs.com`,
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

function mapHost(raw: string, direction: 'toPlatform' | 'toClassic'): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (isEmbedded(url)) return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  for (const pair of PAIRS) {
    const match = (direction === 'toPlatform' ? pair.classic : pair.platform).exec(url.hostname);
    if (match) return `https://${pair[direction](match[1] ?? '', match[2] ?? '')}${url.port ? `:${url.port}` : ''}`;
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
  if (explicit) return explicit.replace(/\/+$/, '');
  const classic = env.DT_ENV_URL?.trim();
  return classic ? platformUrlOf(classic) : undefined;
}

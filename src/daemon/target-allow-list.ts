import type { PlatformTarget } from '../environments/environment.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

/**
 * Which target tokens a repository's dashcd.yaml may use when the daemon follows it (`daemon --repo`): the operator
 * grants `--allow-target VAR=URL` (the token in VAR may go to URL), and a revision asking for any other pair is
 * refused whole. Whoever can push to the repository chooses `target` and `tokenEnv`; without this, a commit could name
 * any of the daemon's variables and any host, and the daemon would send that variable's value there. The platform
 * members are held to the same rule: `platformTokenEnv` → the platform URL; an OAuth client's `oauthClientIdEnv`
 * and `oauthClientSecretEnv` → its token endpoint, and the secret once more → the platform URL, where the access
 * token it buys goes.
 */

/** One operator grant: the token in the variable `tokenEnv` may be sent to `url`. */
export interface TargetGrant {
  tokenEnv: string;
  url: string;
}

/** An environment of dashcd.yaml as far as the check needs it. */
export interface TargetRequest {
  name: string;
  target: { kind: 'embedded' } | { kind: 'remote'; url: string; tokenEnv: string; platform?: PlatformTarget };
}

/** One value the environment would send: a variable's (named by `key` in dashcd.yaml), to a URL. */
interface Send {
  key: string;
  variable: string;
  url: string;
  /** For the access token an OAuth client's secret buys: said in the refusal. */
  note?: string;
}

function sends(target: { url: string; tokenEnv: string; platform?: PlatformTarget }): Send[] {
  const classic: Send = { key: 'tokenEnv', variable: target.tokenEnv, url: target.url };
  const platform = target.platform;
  if (!platform) return [classic];
  const { credential } = platform;
  if (credential.kind === 'platform-token') return [classic, { key: 'platformTokenEnv', variable: credential.tokenEnv, url: platform.url }];
  return [
    classic,
    { key: 'oauthClientIdEnv', variable: credential.clientIdEnv, url: credential.tokenUrl },
    { key: 'oauthClientSecretEnv', variable: credential.clientSecretEnv, url: credential.tokenUrl },
    { key: 'oauthClientSecretEnv', variable: credential.clientSecretEnv, url: platform.url, note: ' (as the access token it buys)' },
  ];
}

/** The daemon's own variables (DASHCD_GIT_TOKEN, DASHCD_WEBHOOK_SECRET, …) never leave it as a target token. */
const OWN_VARIABLES = /^DASHCD_/i;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Who grants, as messages name them: the daemon's `--allow-target` flag, or the CLI's DASHCD_ALLOW_TARGETS variable
 * (cli/target-grants.ts), and whose the DASHCD_* variables are.
 */
export interface GrantSource {
  name: string;
  owner: string;
}

const DAEMON_GRANTS: GrantSource = { name: '--allow-target', owner: "the daemon's" };

/** `VAR=URL` (split at the first `=`: a variable name holds none), or a message saying what is wrong. */
export function parseTargetGrant(text: string, source: GrantSource = DAEMON_GRANTS): TargetGrant | string {
  const at = text.indexOf('=');
  const tokenEnv = text.slice(0, Math.max(at, 0));
  const url = text.slice(at + 1);
  if (!VARIABLE_NAME.test(tokenEnv)) return `${source.name} must be VARIABLE=URL (the variable holding the token, then the target it may go to), got '${text}'`;
  if (OWN_VARIABLES.test(tokenEnv)) return `${source.name} ${tokenEnv}: ${source.owner} own DASHCD_* variables can never be target tokens`;
  if (canonicalTargetUrl(url) === undefined) return `${source.name} ${tokenEnv}=…: '${url}' is not an http(s) environment URL without credentials, query or fragment`;
  return { tokenEnv, url };
}

/**
 * The form two target URLs are compared in: scheme, host, port and path, without trailing slashes. Undefined for
 * anything else (another scheme, credentials, a query or fragment), which no grant can match.
 */
export function canonicalTargetUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') return undefined;
  return `${parsed.origin}${withoutTrailingSlashes(parsed.pathname)}`;
}

/** Why each environment that asks for a target token outside `grants` may not have it; empty when all may. */
export function targetRefusals(environments: readonly TargetRequest[], grants: readonly TargetGrant[], source: GrantSource = DAEMON_GRANTS): string[] {
  const refusals: string[] = [];
  for (const { name, target } of environments) {
    if (target.kind !== 'remote') continue;
    const own = new Set<string>();
    for (const { key, variable, url, note = '' } of sends(target)) {
      if (OWN_VARIABLES.test(variable)) {
        if (!own.has(variable)) refusals.push(`environment '${name}': ${key} ${variable} is one of ${source.owner} own DASHCD_* variables, never a target token`);
        own.add(variable);
        continue;
      }
      const canonical = canonicalTargetUrl(url);
      const granted = canonical !== undefined && grants.some((grant) => grant.tokenEnv === variable && canonicalTargetUrl(grant.url) === canonical);
      if (!granted) refusals.push(`environment '${name}': the operator has not allowed ${variable}${note} to be sent to ${url} (${source.name})`);
    }
  }
  return refusals;
}

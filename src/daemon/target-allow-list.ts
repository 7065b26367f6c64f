/**
 * Which target tokens a repository's dashcd.yaml may use when the daemon follows it (`daemon --repo`): the operator
 * grants `--allow-target VAR=URL` (the token in VAR may go to URL), and a revision asking for any other pair is
 * refused whole. Whoever can push to the repository chooses `target` and `tokenEnv`; without this, a commit could name
 * any of the daemon's variables and any host, and the daemon would send that variable's value there.
 */

/** One operator grant: the token in the variable `tokenEnv` may be sent to `url`. */
export interface TargetGrant {
  tokenEnv: string;
  url: string;
}

/** An environment of dashcd.yaml as far as the check needs it. */
export interface TargetRequest {
  name: string;
  target: { kind: 'embedded' } | { kind: 'remote'; url: string; tokenEnv: string };
}

/** The daemon's own variables (DASHCD_GIT_TOKEN, DASHCD_WEBHOOK_SECRET, …) never leave it as a target token. */
const OWN_VARIABLES = /^DASHCD_/i;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `VAR=URL` (split at the first `=`: a variable name holds none), or a message saying what is wrong. */
export function parseTargetGrant(text: string): TargetGrant | string {
  const at = text.indexOf('=');
  const tokenEnv = text.slice(0, Math.max(at, 0));
  const url = text.slice(at + 1);
  if (!VARIABLE_NAME.test(tokenEnv)) return `--allow-target must be VARIABLE=URL (the variable holding the token, then the target it may go to), got '${text}'`;
  if (OWN_VARIABLES.test(tokenEnv)) return `--allow-target ${tokenEnv}: the daemon's own DASHCD_* variables can never be target tokens`;
  if (canonicalTargetUrl(url) === undefined) return `--allow-target ${tokenEnv}=…: '${url}' is not an http(s) environment URL without credentials, query or fragment`;
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
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** Why each environment that asks for a target token outside `grants` may not have it; empty when all may. */
export function targetRefusals(environments: readonly TargetRequest[], grants: readonly TargetGrant[]): string[] {
  const refusals: string[] = [];
  for (const { name, target } of environments) {
    if (target.kind !== 'remote') continue;
    if (OWN_VARIABLES.test(target.tokenEnv)) {
      refusals.push(`environment '${name}': tokenEnv ${target.tokenEnv} is one of the daemon's own DASHCD_* variables, never a target token`);
      continue;
    }
    const url = canonicalTargetUrl(target.url);
    const granted = url !== undefined && grants.some((grant) => grant.tokenEnv === target.tokenEnv && canonicalTargetUrl(grant.url) === url);
    if (!granted) refusals.push(`environment '${name}': the operator has not allowed ${target.tokenEnv} to be sent to ${target.url} (--allow-target)`);
  }
  return refusals;
}

import { SourceError } from './source-error.js';

/**
 * How dashcd authenticates to the remote. Values come from the environment at the edge (cli); they are handed to
 * each git process through its environment only, never through arguments (visible in `ps`) or a config file.
 */
export interface GitCredentials {
  /** HTTPS: sent as `Authorization: Basic base64(username:token)` to the repository's origin only. */
  token?: string;
  /** HTTPS user for the token; GitHub and GitLab accept any non-empty name with a token. */
  username?: string;
  /** SSH: the private key file (`ssh -i`). */
  sshKeyFile?: string;
  /** SSH: a known_hosts file to check the server's key against (else ssh's own). */
  sshKnownHostsFile?: string;
}

/** Only these transports: `ext::` and friends would run commands named by the URL. */
const ALLOWED_PROTOCOLS = 'https:http:ssh:git:file';

/**
 * The environment for one git invocation against `url`. With a token: `http.<origin>/.extraHeader` through
 * GIT_CONFIG_COUNT (git ≥ 2.31), so the header goes to that origin only and the clone's config never holds it, and
 * credential helpers are switched off so git cannot store or prompt for anything. Never a terminal prompt.
 */
export function gitEnvironment(url: string, credentials: GitCredentials = {}): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS, GCM_INTERACTIVE: 'never' };
  const config: [string, string][] = [];
  if (credentials.token !== undefined) {
    const origin = httpOrigin(url);
    if (origin) {
      config.push([`http.${origin}/.extraHeader`, `Authorization: Basic ${basicAuth(credentials.token, credentials.username)}`]);
      config.push(['credential.helper', '']);
    }
  }
  if (credentials.sshKeyFile !== undefined) env.GIT_SSH_COMMAND = sshCommand(credentials.sshKeyFile, credentials.sshKnownHostsFile);
  if (config.length > 0) {
    env.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return env;
}

/** Every form in which a credential could show up in git's output: scrubbed from errors and logs. */
export function credentialSecrets(credentials: GitCredentials = {}): string[] {
  if (credentials.token === undefined || credentials.token === '') return [];
  return [credentials.token, basicAuth(credentials.token, credentials.username), encodeURIComponent(credentials.token)];
}

/**
 * Refuses what would put a secret where it does not belong — credentials in the URL end up in the mirror's
 * FETCH_HEAD, in log lines, `/status` and the console — and what git would read as an option. Only an SSH user name
 * (`ssh://git@host/…`, `git@host:…`) may stand before the `@`: it is no secret. Percent-encoding hides nothing: git
 * decodes `user%3Asecret` to `user:secret`.
 */
export function checkRepositoryUrl(url: string): void {
  if (url.trim() === '' || url.startsWith('-')) throw new SourceError('git-failed', `not a repository URL: '${url}'`);
  // `ext::sh -c …` and other `<transport>::<address>` remote helpers: git refuses them under the allowed protocols
  // anyway (run-git.ts), so a daemon given one would start and fail every fetch; it is refused before it starts.
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) throw new SourceError('git-failed', `git's ${helper[1]}:: remote helper is not followed: give an https, ssh (git@host:path), git or file URL, or a local path`);
  if (redactUrlCredentials(url) !== url || scpPassword(url)) {
    throw new SourceError(
      'auth-failed',
      'the repository URL carries credentials before its @; give git the token in DASHCD_GIT_TOKEN (and the user in DASHCD_GIT_USERNAME) and pass --repo without them',
    );
  }
}

/**
 * Replaces what stands before the `@` of every URL in `text` with `[REDACTED]`, except an SSH user name without a
 * password. For messages that echo a URL (git's own errors do). The scheme is read as at most the 32 characters
 * before `://`, wherever the word around it begins: from each word's start to its end, the pattern tried every word
 * of a text like `a.a.a.…` (what a git server can print), 4.9 s for 100 kB; and a URL glued to a longer word is
 * still redacted (as an unknown scheme, so its user name too).
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(/([a-z0-9+.-]{0,32}:\/\/)([^\s/?#@'"]*)@/gi, (_match, scheme: string, userinfo: string) => {
    const sshUser = SSH_SCHEMES.includes(scheme.toLowerCase()) && !decoded(userinfo).includes(':');
    return `${scheme}${sshUser ? userinfo : '[REDACTED]'}@`;
  });
}

const SSH_SCHEMES = ['ssh://', 'git+ssh://', 'ssh+git://'];

/** scp-like `user:password@host:path`: a `:` before an `@`, both before the first `/` (decoded first). */
function scpPassword(url: string): boolean {
  return /^[^/]*:[^/]*@/.test(decoded(url));
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `https://host[:port]` of an HTTP(S) URL, or undefined for ssh, git and file URLs. */
function httpOrigin(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
}

function basicAuth(token: string, username = 'x-access-token'): string {
  return Buffer.from(`${username}:${token}`, 'utf8').toString('base64');
}

/** GIT_SSH_COMMAND is run by a shell: every path is single-quoted. BatchMode: fail instead of asking. */
function sshCommand(sshKeyFile: string, sshKnownHostsFile: string | undefined): string {
  const parts = ['ssh', '-i', shellQuote(sshKeyFile), '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'];
  if (sshKnownHostsFile !== undefined) parts.push('-o', `UserKnownHostsFile=${shellQuote(sshKnownHostsFile)}`, '-o', 'StrictHostKeyChecking=yes');
  return parts.join(' ');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

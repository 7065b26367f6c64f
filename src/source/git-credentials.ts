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
      config.push([`http.${origin}/.extraHeader`, `Authorization: Basic ${basicAuth(credentials)}`]);
      config.push(['credential.helper', '']);
    }
  }
  if (credentials.sshKeyFile !== undefined) env.GIT_SSH_COMMAND = sshCommand(credentials);
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
  return [credentials.token, basicAuth(credentials), encodeURIComponent(credentials.token)];
}

/**
 * Refuses what would put a secret where it does not belong (user:password in the URL ends up in the mirror's
 * FETCH_HEAD and in error messages) and what git would read as an option.
 */
export function checkRepositoryUrl(url: string): void {
  if (url.trim() === '' || url.startsWith('-')) throw new SourceError('git-failed', `not a repository URL: '${url}'`);
  const origin = /^[a-z][a-z0-9+.-]*:\/\/([^/@]*)@/i.exec(url);
  if (origin?.[1]?.includes(':')) {
    throw new SourceError('auth-failed', 'the repository URL carries a password; put the token in DASHCD_GIT_TOKEN and remove it from --repo');
  }
}

/** `https://host[:port]` of an HTTP(S) URL, or undefined for ssh, git and file URLs. */
function httpOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

function basicAuth({ token = '', username = 'x-access-token' }: GitCredentials): string {
  return Buffer.from(`${username}:${token}`, 'utf8').toString('base64');
}

/** GIT_SSH_COMMAND is run by a shell: every path is single-quoted. BatchMode: fail instead of asking. */
function sshCommand({ sshKeyFile = '', sshKnownHostsFile }: GitCredentials): string {
  const parts = ['ssh', '-i', shellQuote(sshKeyFile), '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'];
  if (sshKnownHostsFile !== undefined) parts.push('-o', `UserKnownHostsFile=${shellQuote(sshKnownHostsFile)}`, '-o', 'StrictHostKeyChecking=yes');
  return parts.join(' ');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * What git may see of dashcd's environment: where programs and the home folder are, the locale, proxies and CA
 * certificates, an SSH agent, and the operator's own GIT_* settings. Never the rest: dashcd holds DASHCD_GIT_TOKEN,
 * DASHCD_WEBHOOK_SECRET and target tokens (a CI job, every secret of its step), and git runs hooks, helpers, ssh and
 * a repository's configured commands, which would all inherit them. A token
 * reaches git only through `options.env`, and only for the remote that needs it (`gitEnvironment`).
 */
export function inheritedEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && INHERITED.test(name) && !NEVER_INHERITED.test(name)) kept[name] = value;
  return kept;
}

/** In any case: Windows spells its variables as it likes (`Path`, `SystemRoot`), and git there needs them. */
const INHERITED =
  /^(?:PATH|HOME|USER|LOGNAME|SHELL|TMPDIR|TEMP|TMP|TZ|LANG|LANGUAGE|LC_[A-Z]+|XDG_CONFIG_HOME|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|PATHEXT|USERPROFILE|HOMEDRIVE|HOMEPATH|SSH_AUTH_SOCK|SSL_CERT_FILE|SSL_CERT_DIR|CURL_CA_BUNDLE|(?:HTTPS?|ALL|NO)_PROXY|GIT_[A-Z0-9_]+)$/i;
/** GIT_CONFIG_* pairs can carry headers (a credential): git gets only the ones `gitEnvironment` builds. */
const NEVER_INHERITED = /^GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+|PARAMETERS)$/i;

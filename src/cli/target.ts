import { environmentLabel } from '../client/environment-label.js';
import { createApiClient, withDocuments, withoutDocuments, type ApiClient, type RetryPolicy } from '../client/api-client.js';
import { createDocumentsClient } from '../client/documents-api.js';
import { platformCredentialFromEnv, type PlatformCredential } from '../client/platform-auth.js';
import { platformUrlOf } from '../lib/platform-url.js';
import type { TargetOrigin } from '../client/messages.js';
import type { CommandIo } from './command.js';
import { CliError, ExitCode, UsageError } from './exit-codes.js';
import { parseDuration } from './int-flag.js';
import { requestSessionCredentials } from './owner-admin.js';
import { claimLocalStore } from './local-store.js';
import { dataDirOf } from './data-dir-default.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

/** Where commands send their requests: a remote environment, the server owning the local store, or an in-process one. */
export interface TargetSession {
  readonly client: ApiClient;
  /** Human-readable target for output and logs (never carries a token). */
  readonly label: string;
  readonly env: string;
  readonly kind: 'remote' | 'owner' | 'embedded';
  close(): Promise<void>;
}

export interface TargetFlags {
  target?: string | undefined;
  data?: string | undefined;
  /** The scopes this command's requests need, named when the token is missing (default: what apply needs). */
  scopes?: readonly string[] | undefined;
}

/**
 * Resolves flags and environment into a target, once, at the edge. Precedence: `--target`, then `DT_ENV_URL`
 * (alias `DYNATRACE_ENV_URL`) with `DT_API_TOKEN` (alias `DYNATRACE_API_TOKEN`); with neither, the embedded store in
 * `.dashcd/` — through the server that owns it if one runs, else an in-process server on a loopback port.
 * Every path talks HTTP through the same client.
 */
export async function openTarget(flags: TargetFlags, io: CommandIo): Promise<TargetSession> {
  const url = flags.target ?? envValue(io.env, 'DT_ENV_URL', 'DYNATRACE_ENV_URL');
  if (url) return openRemote(url, io, flags.scopes, flags.target === undefined ? envName(io.env, 'DT_ENV_URL', 'DYNATRACE_ENV_URL') : '--target');
  return openLocal(await dataDirOf(flags.data, io.cwd), io);
}

function openRemote(rawUrl: string, io: CommandIo, scopes: readonly string[] = ['ReadConfig', 'WriteConfig'], urlFrom = 'DT_ENV_URL'): TargetSession {
  const baseUrl = parseTargetUrl(rawUrl);
  const token = envValue(io.env, 'DT_API_TOKEN', 'DYNATRACE_API_TOKEN');
  if (!token) {
    const needs = scopes.length === 1 ? `scope ${scopes[0] ?? ''}` : `scopes ${scopes.join(' and ')}`;
    throw new CliError(`no API token for ${baseUrl}: set DT_API_TOKEN to a token with ${needs}`, ExitCode.TargetUnavailable);
  }
  const origin = { url: urlFrom, token: envName(io.env, 'DT_API_TOKEN', 'DYNATRACE_API_TOKEN') };
  const { client, close } = runClient(io, { baseUrl, token, retry: retryFromEnv(io.env), origin, platform: platformFromEnv(io.env, baseUrl), noPlatform: platformMissing(io.env, baseUrl) });
  return { client, label: baseUrl, env: environmentLabel(baseUrl), kind: 'remote', close };
}

async function openLocal(dataDir: string, io: CommandIo): Promise<TargetSession> {
  const store = await claimLocalStore(dataDir, io);
  if (store.kind === 'owner') {
    const baseUrl = `${store.owner.url}/e/local`;
    const { token, platformToken } = await requestSessionCredentials(store.owner, 'local');
    const { client, close } = runClient(io, { baseUrl, token, retry: retryFromEnv(io.env), platform: embeddedPlatform(baseUrl, platformToken) });
    return { client, label: baseUrl, env: 'local', kind: 'owner', close };
  }
  const { server } = store;
  const { client, close } = runClient(io, { baseUrl: server.url, token: server.token, platform: embeddedPlatform(server.url, server.platformToken) });
  return {
    client,
    label: `embedded store ${dataDir}`,
    env: 'local',
    kind: 'embedded',
    close: async () => {
      await close();
      await server.close();
    },
  };
}

/** Where a target's Document service is and how to authenticate to it (platform dashboards and notebooks). */
export interface PlatformAccess {
  url: string;
  credential: PlatformCredential;
  /** What its failures tell the user to check (default: DT_PLATFORM_URL and DT_PLATFORM_TOKEN). */
  origin?: TargetOrigin;
}

/**
 * The client for this run: its requests and retry waits stop when the run is aborted (Ctrl-C). With `platform`, the
 * environment's Document service is reachable through it too (`client.documents`), with the same retry deadline.
 */
export function runClient(
  io: CommandIo,
  options: { baseUrl: string; token: string; retry?: Partial<RetryPolicy>; origin?: TargetOrigin; platform?: PlatformAccess | undefined; noPlatform?: string | undefined },
): { client: ApiClient; close(): Promise<void> } {
  const { platform, noPlatform, ...config } = options;
  const api = createApiClient({ ...config, log: io.log, signal: io.signal });
  const client = platform === undefined ? (noPlatform === undefined ? api : withoutDocuments(api, noPlatform)) : withDocuments(api, createDocumentsClient({ platformUrl: platform.url, credential: platform.credential, log: io.log, signal: io.signal, ...(platform.origin ? { origin: platform.origin } : {}), ...(options.retry ? { retry: options.retry } : {}) }));
  return { client, close: () => client.close() };
}

/** The embedded server serves each environment's Document service under the environment's own root. */
export function embeddedPlatform(envUrl: string, platformToken: string): PlatformAccess {
  return { url: envUrl, credential: { kind: 'platform-token', token: platformToken } };
}

/**
 * A remote target's platform from the variables: `DT_PLATFORM_URL` (else derived from the target where that is
 * certain) and `DT_PLATFORM_TOKEN` or an OAuth client; none when either is missing (then a document file fails the
 * run as an unusable target, saying what to set).
 */
export function platformFromEnv(env: CommandIo['env'], baseUrl: string): PlatformAccess | undefined {
  const credential = platformCredentialFromEnv(env);
  const given = envValue(env, 'DT_PLATFORM_URL');
  const url = given === undefined ? platformUrlOf(baseUrl) : withoutTrailingSlashes(given);
  return credential === undefined || url === undefined ? undefined : { url, credential };
}

/**
 * What to set when platformFromEnv finds no platform: the credential, or, with one set, the platform URL that a
 * Managed or custom host does not name (a newcomer with DT_PLATFORM_TOKEN set was told to set DT_PLATFORM_TOKEN).
 */
export function platformMissing(env: CommandIo['env'], baseUrl: string): string | undefined {
  const credential = platformCredentialFromEnv(env);
  if (credential === undefined) return 'set DT_PLATFORM_TOKEN (or DT_CLIENT_ID and DT_CLIENT_SECRET)';
  if (envValue(env, 'DT_PLATFORM_URL') !== undefined || platformUrlOf(baseUrl) !== undefined) return undefined;
  const set = credential.kind === 'platform-token' ? 'DT_PLATFORM_TOKEN is' : 'DT_CLIENT_ID and DT_CLIENT_SECRET are';
  const fix = loopbackHttps(baseUrl) ? `; dashcd's own server speaks http, not https: for it, write ${baseUrl.replace(/^https:/i, 'http:')} and its platform is the same address` : '';
  return `${set} set, but DT_PLATFORM_URL is not, and ${baseUrl} does not name its platform host (only a SaaS URL such as https://abc123.live.dynatrace.com does): set DT_PLATFORM_URL to the environment's platform URL${fix}`;
}

/** An https URL of this machine: most likely dashcd's embedded server, which serves plain http, with a wrong scheme. */
function loopbackHttps(url: string): boolean {
  return /^https:\/\/(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?(?:\/|$)/i.test(url);
}

/**
 * `DASHCD_RETRY_DEADLINE` (`90s`, `2m`, `500ms`): how long one request may take, its retries of 429/5xx answers and
 * connection failures and an answer still arriving included, before it counts as failed (default 60 s). CI jobs
 * that would rather fail fast lower it.
 */
export function retryFromEnv(env: CommandIo['env']): Partial<RetryPolicy> {
  const raw = env.DASHCD_RETRY_DEADLINE;
  if (raw === undefined || raw === '') return {};
  const deadlineMs = parseDuration(raw);
  // 0 left no time for even one answer (the deadline bounds an attempt in progress too).
  if (deadlineMs === undefined || deadlineMs === 0) throw new UsageError(`DASHCD_RETRY_DEADLINE must be a duration like 30s or 2m, above 0, got '${raw}'`);
  return { deadlineMs };
}

/**
 * Accepts an environment root (`https://abc.live.dynatrace.com`, `http://host:8080/e/prod`); drops a trailing `/`.
 * An API base pasted from the service's docs or a curl line (`…/e/prod/api/config/v1`, `…/api/v2/`) is cut back to
 * its environment root, which is what every request path is built on.
 */
export function parseTargetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`target '${raw}' is not a URL (expected e.g. https://abc123.live.dynatrace.com or http://127.0.0.1:8080/e/local)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`target '${raw}' must be http or https`);
  if (url.search || url.username || url.password) throw new UsageError('the target URL must not carry credentials or a query; put the token in DT_API_TOKEN');
  return `${url.origin}${withoutTrailingSlashes(url.pathname).replace(API_BASE, '')}`;
}

/**
 * `/api`, `/api/v2`, `/api/config/v1`… at the end of a path, where the API starts under an environment root, and the
 * collection a curl line names after it (`/api/v2/events`, `/api/config/v1/dashboards`): a pasted events URL had
 * `/api/v1/events` asked for below it, a 404.
 */
const API_BASE = /\/api(?:\/config)?(?:\/v\d+(?:\/(?:events|dashboards))?)?$/;

/** Which of `names` is set (the first of them when none is), to name it in hints. */
function envName(env: CommandIo['env'], ...names: [string, ...string[]]): string {
  return names.find((name) => (env[name] ?? '') !== '') ?? names[0];
}

/** The first of `names` set to a non-empty value: `DT_ENV_URL=` (set but empty, as CI templating leaves it) is unset. */
export function envValue(env: CommandIo['env'], ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

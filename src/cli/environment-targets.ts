import { remoteTargetOrigin, type Environment, type PlatformCredentialSource } from '../environments/environment.js';
import { EnvironmentId } from '../schema/ids.js';
import type { CommandIo } from './command.js';
import { CliError, ExitCode } from './exit-codes.js';
import { claimLocalStore } from './local-store.js';
import { dataDirOf } from './data-dir-default.js';
import { requestSessionCredentials } from './owner-admin.js';
import { embeddedPlatform, envValue, retryFromEnv, runClient, type PlatformAccess, type TargetSession } from './target.js';
import { requireGrantedTarget } from './target-grants.js';

/** Opens each environment's target once and closes them all: remote ones with their own token variable. */
export interface EnvironmentTargets {
  /** Throws a CliError (exit 4) when the environment cannot be used, e.g. its token variable is unset. */
  open(env: Environment): Promise<TargetSession>;
  close(): Promise<void>;
}

type Embedded = { session(env: string): Promise<{ url: string; token: string; platformToken: string }>; label(env: string): string; close(): Promise<void> };

/**
 * Embedded environments share one server of the data dir (`/e/<name>` each): the server that owns it if one runs,
 * else one started in-process for the command. A remote environment's token comes from the variable its
 * `tokenEnv` names, so a dev token can never be sent to prod.
 */
export function environmentTargets(flags: { data?: string | undefined; scopes?: readonly string[] | undefined }, io: CommandIo): EnvironmentTargets {
  let embedded: Promise<Embedded> | undefined;
  const sessions: TargetSession[] = [];
  return {
    async open(env) {
      const session = env.target.kind === 'remote' ? openRemote(env, env.target, io, flags.scopes) : await openEmbedded(env, await (embedded ??= dataDirOf(flags.data, io.cwd).then((dataDir) => startEmbedded(dataDir, io))), io);
      sessions.push(session);
      return session;
    },
    async close() {
      await Promise.all(sessions.map((s) => s.close()));
      if (embedded) await (await embedded.catch(() => undefined))?.close();
    },
  };
}

/** A remote environment's `tokenEnv` variable is unset: the environment cannot be used (exit 4), nothing was sent. */
export class MissingTokenError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.TargetUnavailable);
    this.name = 'MissingTokenError';
  }
}

/**
 * The token of a remote environment, from the variable its `tokenEnv` names, once the operator's grants allow it
 * (target-grants.ts). Unset: a MissingTokenError naming the variable, where the target came from, and the scopes this
 * command needs (default: what apply needs).
 */
export function environmentToken(env: Environment, target: { url: string; tokenEnv: string }, io: CommandIo, scopes: readonly string[] = ['ReadConfig', 'WriteConfig']): string {
  requireGrantedTarget(env, io.env);
  const token = io.env[target.tokenEnv];
  if (token === undefined || token === '') {
    const needs = scopes.length === 1 ? `scope ${scopes[0] ?? ''}` : `scopes ${scopes.slice(0, -1).join(', ')} and ${scopes.at(-1) ?? ''}`;
    throw new MissingTokenError(`${target.tokenEnv} is not set: ${env.name}'s target (${target.url}, from dashcd.yaml) takes its token from ${target.tokenEnv} (tokenEnv); set it to a token with ${needs}`);
  }
  return token;
}

function openRemote(env: Environment, target: { url: string; tokenEnv: string }, io: CommandIo, scopes: readonly string[] | undefined): TargetSession {
  const token = environmentToken(env, target, io, scopes);
  const origin = remoteTargetOrigin(env, target);
  const { client, close } = runClient(io, { baseUrl: target.url, token, retry: retryFromEnv(io.env), origin, platform: environmentPlatform(env, io), noPlatform: environmentPlatformMissing(env, io) });
  return { client, label: target.url, env: env.name, kind: 'remote', close };
}

/**
 * A remote environment's Document service, from its platform settings in dashcd.yaml and the variables they name;
 * none when dashcd.yaml names none or a variable is unset (a document file then fails the run as an unusable
 * target, saying what environmentPlatformMissing says). Its failures name those variables, not DT_PLATFORM_TOKEN.
 */
export function environmentPlatform(env: Environment, io: CommandIo): PlatformAccess | undefined {
  const platform = env.target.kind === 'remote' ? env.target.platform : undefined;
  if (platform === undefined) return undefined;
  const { credential } = platform;
  // What a failure tells the user to check or set: platformTarget, which is derived from target when not written.
  const where = platform.derived ? `platformTarget of ${env.name} in dashcd.yaml (now derived from its target)` : `${env.name}'s platformTarget in dashcd.yaml`;
  const origin = { url: where, token: credentialVariables(credential).join(' and ') };
  if (credential.kind === 'platform-token') {
    const token = envValue(io.env, credential.tokenEnv);
    return token === undefined ? undefined : { url: platform.url, credential: { kind: 'platform-token', token }, origin };
  }
  const clientId = envValue(io.env, credential.clientIdEnv);
  const clientSecret = envValue(io.env, credential.clientSecretEnv);
  if (clientId === undefined || clientSecret === undefined) return undefined;
  return { url: platform.url, credential: { kind: 'oauth-client', clientId, clientSecret, tokenUrl: credential.tokenUrl, scopes: [] }, origin };
}

/**
 * What to set when environmentPlatform finds none for a remote environment: its credential's unset variable (as an
 * unset tokenEnv is named), or the platform settings dashcd.yaml lacks. It said "set DT_PLATFORM_TOKEN", which an
 * environment of dashcd.yaml never reads.
 */
export function environmentPlatformMissing(env: Environment, io: CommandIo): string | undefined {
  if (env.target.kind !== 'remote') return undefined;
  const { platform } = env.target;
  if (platform === undefined) return `${env.name} in dashcd.yaml has no platform credential: give it platformTokenEnv (or oauthClientIdEnv and oauthClientSecretEnv)`;
  const unset = credentialVariables(platform.credential).filter((name) => envValue(io.env, name) === undefined);
  if (unset.length === 0) return undefined;
  const from = platform.credential.kind === 'platform-token' ? 'its token from' : 'its OAuth client from';
  return `${unset.join(' and ')} ${unset.length === 1 ? 'is' : 'are'} not set: ${env.name}'s platform (${platform.url}, from dashcd.yaml) takes ${from} ${credentialVariables(platform.credential).join(' and ')}`;
}

function credentialVariables(credential: PlatformCredentialSource): string[] {
  return credential.kind === 'platform-token' ? [credential.tokenEnv] : [credential.clientIdEnv, credential.clientSecretEnv];
}


async function openEmbedded(env: Environment, server: Embedded, io: CommandIo): Promise<TargetSession> {
  const { url, token, platformToken } = await server.session(EnvironmentId.parse(env.name));
  const { client, close } = runClient(io, { baseUrl: url, token, retry: retryFromEnv(io.env), platform: embeddedPlatform(url, platformToken) });
  return { client, label: server.label(env.name), env: env.name, kind: 'embedded', close };
}

async function startEmbedded(dataDir: string, io: CommandIo): Promise<Embedded> {
  const store = await claimLocalStore(dataDir, io);
  if (store.kind === 'owner') {
    const { owner } = store;
    return { label: (env) => `${owner.url}/e/${env}`, session: async (env) => ({ url: `${owner.url}/e/${env}`, ...(await requestSessionCredentials(owner, env)) }), close: async () => undefined };
  }
  const { server } = store;
  return { label: (env) => `/e/${env} of the embedded store ${dataDir}`, session: (env) => server.session(EnvironmentId.parse(env)), close: () => server.close() };
}

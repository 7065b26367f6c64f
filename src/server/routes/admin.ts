import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../../lib/logger.js';
import { EnvironmentId } from '../../schema/ids.js';
import { Scope } from '../../schema/scopes.js';
import { CreateTokenInput, TokenStoreError } from '../auth/token-records.js';
import type { Environment, EnvironmentRegistry } from '../environments.js';
import type { AdminApi, AdminContext, AdminRoute } from '../http/admin-route.js';
import { AUTH_MESSAGES } from '../http/authenticate.js';
import { HttpError } from '../http/http-error.js';

export interface AdminDeps {
  readonly environments: EnvironmentRegistry;
  /** The data dir owner's key (Ownership.adminKey); only someone who can read owner.json has it. */
  readonly adminKey: string;
  readonly log: Logger;
  /** A platform token with every platform scope for the environment's Document service, in memory until the server stops. */
  platformToken(env: EnvironmentId): Promise<string>;
}

const TOKENS = 'env/{env}/tokens';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Token management for a running server, so `dashcd token …` works while `serve` owns the data dir: list, create
 * (creating the environment, which is then served at once), revoke, and a session token for other CLI commands. Answers use the ErrorEnvelope like every
 * other route.
 */
export function createAdminApi({ environments, adminKey, log, platformToken }: AdminDeps): AdminApi {
  const expected = digest(adminKey);
  const routes: AdminRoute[] = [
    { method: 'GET', path: TOKENS, handle: async (ctx) => ({ status: 200, body: { tokens: (await existing(environments, ctx)).tokens.list() } }) },
    { method: 'POST', path: TOKENS, handle: async (ctx) => createToken(environments, ctx, log) },
    { method: 'DELETE', path: `${TOKENS}/{idOrName}`, handle: async (ctx) => revokeToken(environments, ctx, log) },
    { method: 'POST', path: 'env/{env}/session', handle: async (ctx) => sessionCredentials(environments, platformToken, ctx) },
  ];
  return {
    routes,
    authorize(headers: IncomingHttpHeaders) {
      const header = headers.authorization;
      if (!header) throw new HttpError(401, AUTH_MESSAGES.missing);
      const key = BEARER.exec(header)?.[1];
      // Digests have equal lengths, so timingSafeEqual compares in constant time and cannot throw.
      if (!key || !timingSafeEqual(digest(key), expected)) throw new HttpError(401, 'Admin key rejected.');
    },
  };
}

async function createToken(environments: EnvironmentRegistry, ctx: AdminContext, log: Logger) {
  const env = EnvironmentId.safeParse(ctx.params['env']);
  if (!env.success) throw HttpError.fromIssues(env.error.issues, { location: 'PATH', prefix: ['env'] });
  const input = CreateTokenInput.safeParse(await ctx.readJson());
  if (!input.success) throw HttpError.fromIssues(input.error.issues);
  const environment = await environments.ensure(env.data);
  const { token, info } = await environment.tokens.create(input.data).catch(asHttpError);
  log.info({ env: env.data, id: info.id, name: info.name, scopes: info.scopes }, 'token created');
  return { status: 201, body: { token, info } };
}

async function revokeToken(environments: EnvironmentRegistry, ctx: AdminContext, log: Logger) {
  const environment = await existing(environments, ctx);
  const idOrName = decodeSegment(ctx.params['idOrName'] ?? '');
  if (!(await environment.tokens.revoke(idOrName).catch(asHttpError))) {
    throw new HttpError(404, `Token ${idOrName} not found`);
  }
  log.info({ env: environment.id, ref: idOrName }, 'token revoked');
  return { status: 204 };
}

/**
 * In-memory tokens with every scope, valid until this server stops, for CLI commands run beside `serve`: a classic
 * API token and a platform token for the environment's Document service. The environment is created if new: a
 * repository's declared environments live in the embedded API as `/e/<name>`.
 */
async function sessionCredentials(environments: EnvironmentRegistry, platformToken: AdminDeps['platformToken'], ctx: AdminContext) {
  const env = EnvironmentId.safeParse(ctx.params['env']);
  if (!env.success) throw HttpError.fromIssues(env.error.issues, { location: 'PATH', prefix: ['env'] });
  const environment = await environments.ensure(env.data);
  const token = environment.tokens.addEphemeral([...Scope.options], 'cli-session');
  return { status: 201, body: { token, platformToken: await platformToken(env.data) } };
}

async function existing(environments: EnvironmentRegistry, ctx: AdminContext): Promise<Environment> {
  const raw = ctx.params['env'] ?? '';
  const env = EnvironmentId.safeParse(raw);
  const environment = env.success ? await environments.find(env.data) : undefined;
  if (!environment) throw new HttpError(404, `Environment ${raw.slice(0, 80)} not found`);
  return environment;
}

function asHttpError(error: unknown): never {
  if (error instanceof TokenStoreError && error.code !== 'TOKEN_FILE_DAMAGED') throw new HttpError(400, error.message);
  throw error;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'The token id or name in the path is not valid percent-encoding.');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

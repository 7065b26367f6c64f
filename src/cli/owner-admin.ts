import { request } from 'undici';
import { z } from 'zod';
import { ErrorEnvelope } from '../schema/error-envelope.js';
import type { Scope } from '../schema/scopes.js';
import type { OwnerInfo } from '../server/data-dir.js';
import { TokenInfo } from '../server/auth/token-records.js';
import { CliError, ExitCode } from './exit-codes.js';
import { errorMessage } from '../lib/error-message.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

/**
 * The CLI side of the admin API of the dashcd that owns a data dir (`/_dashcd/admin/…`, `Authorization: Bearer
 * <adminKey>` from owner.json). Changes made here apply to the owner's next request, with no restart.
 */
export interface OwnerAdmin {
  listTokens(env: string): Promise<TokenInfo[]>;
  createToken(env: string, input: { name: string; scopes: Scope[] }): Promise<{ token: string; info: TokenInfo }>;
  /** `false` when the owner knows no such token (404). */
  revokeToken(env: string, idOrName: string): Promise<boolean>;
  /**
   * In-memory tokens with every scope, valid until the owner stops, for commands that talk to the owner's API: a
   * classic API token and a platform token for the environment's Document service.
   */
  sessionCredentials(env: string): Promise<{ token: string; platformToken: string }>;
}

export interface OwnerAdminOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

const TokenList = z.object({ tokens: z.array(TokenInfo) });
const CreatedToken = z.object({ token: z.string(), info: TokenInfo });
const SessionCredentials = z.object({ token: z.string(), platformToken: z.string() });

type Owner = Pick<OwnerInfo, 'url' | 'adminKey'>;

export function ownerAdmin(owner: Owner, { signal, timeoutMs = 10_000 }: OwnerAdminOptions = {}): OwnerAdmin {
  const call = (method: Method, path: string, body?: unknown): Promise<AdminResponse> =>
    callAdmin(owner, { method, path, body, signal, timeoutMs });
  const tokensPath = (env: string): string => `/env/${encodeURIComponent(env)}/tokens`;
  return {
    async listTokens(env) {
      return expect(await call('GET', tokensPath(env)), 200, TokenList, owner).tokens;
    },
    async createToken(env, input) {
      return expect(await call('POST', tokensPath(env), input), 201, CreatedToken, owner);
    },
    async revokeToken(env, idOrName) {
      const response = await call('DELETE', `${tokensPath(env)}/${encodeURIComponent(idOrName)}`);
      if (response.status === 404) return false;
      expect(response, 204, z.unknown(), owner);
      return true;
    },
    async sessionCredentials(env) {
      return expect(await call('POST', `/env/${encodeURIComponent(env)}/session`), 201, SessionCredentials, owner);
    },
  };
}

/** Tokens for this CLI run to use against the owner's API (see `OwnerAdmin.sessionCredentials`). */
export async function requestSessionCredentials(owner: Owner, env: string, options: OwnerAdminOptions = {}): Promise<{ token: string; platformToken: string }> {
  return ownerAdmin(owner, options).sessionCredentials(env);
}

type Method = 'GET' | 'POST' | 'DELETE';

interface AdminResponse {
  readonly status: number;
  readonly json: unknown;
  readonly site: string;
}

async function callAdmin(
  owner: Owner,
  { method, path, body, signal, timeoutMs }: { method: Method; path: string; body: unknown; signal?: AbortSignal; timeoutMs: number },
): Promise<AdminResponse> {
  const url = `${withoutTrailingSlashes(owner.url)}/_dashcd/admin${path}`;
  const site = `${method} ${url}`;
  const headers: Record<string, string> = { authorization: `Bearer ${owner.adminKey}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await response.body.text();
    return { status: response.statusCode, json: parseJson(text), site };
  } catch (error) {
    const reason = (error as { code?: string }).code ?? (errorMessage(error));
    throw new CliError(
      `cannot reach the dashcd that owns the data dir at ${owner.url} (${reason}) — is it still running?`,
      ExitCode.TargetUnavailable,
      { cause: error },
    );
  }
}

/**
 * The expected status with a body of the expected shape, or a CliError that says why: the owner's own message for a
 * request it refused (4xx, exit 64), a rejected admin key or a server failure (exit 4).
 */
function expect<T>(response: AdminResponse, status: number, schema: z.ZodType<T>, owner: Owner): T {
  if (response.status === status) {
    const parsed = schema.safeParse(response.json);
    if (parsed.success) return parsed.data;
    throw new CliError(`${response.site} answered ${status} with an unexpected body — is ${owner.url} a dashcd?`, ExitCode.TargetUnavailable);
  }
  const message = ErrorEnvelope.safeParse(response.json).data?.error.message ?? `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    throw new CliError(
      `the dashcd at ${owner.url} rejected the admin key from owner.json (${message}) — it may belong to another run; restart that dashcd`,
      ExitCode.TargetUnavailable,
    );
  }
  if (response.status >= 400 && response.status < 500) throw new CliError(message, ExitCode.Usage);
  throw new CliError(`${response.site} failed: ${response.status} ${message}`, ExitCode.TargetUnavailable);
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

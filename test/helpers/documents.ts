import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { encodeMultipart, multipartContentType, newBoundary } from '../../src/lib/multipart-write.js';
import { PlatformErrorEnvelope } from '../../src/schema/documents.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../../src/schema/ids.js';
import { PlatformScope } from '../../src/schema/scopes.js';
import { createCredential } from '../../src/server/auth/platform-credentials.js';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { platformCredentialsFile } from '../../src/server/documents/document-api.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

export const ALL_PLATFORM_SCOPES: PlatformScope[] = [...PlatformScope.options];

export interface DocumentServer extends TestServer {
  /** `http://127.0.0.1:PORT[/e/env]/platform/document/v1`. */
  docsUrl(env?: EnvironmentId): string;
  /** A stored platform token of `env` acting as `subject` with these scopes (all by default). */
  platformToken(options?: { scopes?: PlatformScope[]; subject?: string; env?: EnvironmentId }): Promise<string>;
  /** A stored OAuth client: its id and secret. */
  oauthClient(options?: { scopes?: PlatformScope[]; subject?: string; env?: EnvironmentId }): Promise<{ clientId: string; secret: string }>;
}

/** The real server over a temp data dir, with platform credentials made as `dashcd token create` makes them. */
export async function startDocumentServer(options: TestServerOptions = {}): Promise<DocumentServer> {
  const server = await startTestServer({ events: false, ...options });
  const file = (env: EnvironmentId) => platformCredentialsFile(dataDirLayout(server.dataDir), env);
  const make = async (kind: 'platform-token' | 'oauth-client', { scopes = ALL_PLATFORM_SCOPES, subject, env = DEFAULT_ENVIRONMENT }: { scopes?: PlatformScope[]; subject?: string; env?: EnvironmentId } = {}) =>
    createCredential(file(env), { kind, name: kind, scopes, ...(subject !== undefined ? { subject } : {}) });
  return {
    ...server,
    docsUrl: (env) => `${env === undefined ? server.baseUrl : server.server.envUrl(env)}/platform/document/v1`,
    platformToken: async (opts) => (await make('platform-token', opts)).secret,
    oauthClient: async (opts) => {
      const created = await make('oauth-client', opts);
      return { clientId: created.clientId ?? '', secret: created.secret };
    },
  };
}

export interface DocumentParts {
  readonly name?: string;
  readonly type?: string;
  readonly description?: string;
  readonly id?: string;
  readonly isPrivate?: string;
  readonly content?: { readonly bytes: Uint8Array | string; readonly contentType: string; readonly filename?: string };
  /** Parts beyond the known ones (`labels`, …). */
  readonly extra?: ReadonlyArray<readonly [string, string]>;
}

/** A multipart body as Go's multipart.Writer frames it (Monaco's requests): text fields, then the content file. */
export function documentForm(parts: DocumentParts): { body: Buffer; contentType: string } {
  const boundary = newBoundary();
  const fields = (['name', 'type', 'description', 'id', 'isPrivate'] as const).flatMap((key) => {
    const value = parts[key];
    return value === undefined ? [] : [{ name: key, contentType: 'text/plain; charset=utf-8', body: value }];
  });
  const extra = (parts.extra ?? []).map(([name, value]) => ({ name, contentType: 'text/plain', body: value }));
  const content = parts.content
    ? [{ name: 'content', filename: parts.content.filename ?? parts.name ?? 'content', contentType: parts.content.contentType, body: parts.content.bytes }]
    : [];
  return { body: encodeMultipart(boundary, [...fields, ...extra, ...content]), contentType: multipartContentType(boundary) };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** One HTTP request with exact bytes out and in (fetch would hide the framing). */
export function rawRequest(url: string, { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A document call with a bearer token: the form (if any) as Go would send it. */
export function documentCall(url: string, token: string | undefined, { method = 'GET', form }: { method?: string; form?: DocumentParts } = {}): Promise<RawResponse> {
  const encoded = form ? documentForm(form) : undefined;
  return rawRequest(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(encoded ? { 'content-type': encoded.contentType } : {}) },
    ...(encoded ? { body: encoded.body } : {}),
  });
}

export function json<T = Record<string, unknown>>(response: RawResponse): T {
  return JSON.parse(response.body.toString('utf8')) as T;
}

/** Asserts the platform error envelope with `status` (and a message matching `message`). */
export function expectPlatformError(response: RawResponse, status: number, message?: RegExp): void {
  expect(response.status, response.body.toString('utf8').slice(0, 300)).toBe(status);
  const envelope = PlatformErrorEnvelope.parse(json(response));
  expect(envelope.error.code).toBe(status);
  expect(envelope.error.details?.errorRef).toMatch(/^[0-9a-f-]{36}$/);
  if (message) expect(envelope.error.message).toMatch(message);
}

import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/client/api-client.js';
import { ApiError, UnexpectedResponseError, isAuthError, isUnreachable } from '../../src/client/errors.js';
import { createLogger } from '../../src/lib/logger.js';
import { faultClientPerTest, type FaultClient } from '../helpers/fault-client.js';
import { CORPUS_DIR } from '../helpers/corpus.js';

/** Not token-shaped on purpose: the embedded server's tokens are not `dt0c01.…`, and must be redacted too. */
const TOKEN = 'embedded-secret-7f3a9c2e51';
const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';
const ERRORS = join(CORPUS_DIR, 'errors');

const startFaultClient = faultClientPerTest();

function setup(options: Partial<ApiClientOptions> = {}): Promise<FaultClient> {
  return startFaultClient({}, { token: TOKEN, retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 }, ...options });
}

const envelope = (code: number, message: string) => ({ error: { code, message } });

describe('client error messages', () => {
  it('explains a 401 in one line, does not retry it, and counts as an auth error', async () => {
    const { server, client, base } = await setup();
    server.script({ status: 401, body: envelope(401, 'Missing authorization parameter.') });
    const error = await client.dashboards.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toBe(`401 from ${base}: token rejected (Missing authorization parameter.) — check DT_API_TOKEN`);
    expect(isAuthError(error)).toBe(true);
    expect(isUnreachable(error)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('names where the URL and token came from when the caller says (an environment of dashcd.yaml and its tokenEnv)', async () => {
    const { server, client, base } = await setup({ origin: { url: "prod's target in dashcd.yaml", token: 'PROD_DT_TOKEN' } });
    server.script({ status: 401, body: envelope(401, 'Missing authorization parameter.') });
    expect(((await client.dashboards.list().catch((e: unknown) => e)) as Error).message).toBe(`401 from ${base}: token rejected (Missing authorization parameter.) — check PROD_DT_TOKEN`);
    server.script({ status: 404, body: 'not here' });
    await expect(client.dashboards.list()).rejects.toThrow(/no such API path — is prod's target in dashcd\.yaml the environment root/);
  });

  it('names the missing scope of a 403 as the service words it', async () => {
    const { server, client, base } = await setup();
    server.script({ status: 403, body: envelope(403, 'Token is missing required scope. Use one of: WriteConfig (Write configuration)') });
    const error = await client.dashboards.put(ID, {}).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`403 from ${base}: token is missing scope WriteConfig (Write configuration) — put a token with it in DT_API_TOKEN`);
    expect(error).toMatchObject({ status: 403, envelope: { error: { code: 403 } } });
    expect(isAuthError(error)).toBe(true);
  });

  it('reads the scope from a recorded real 403 body', async () => {
    const { server, client } = await setup();
    const body = readFileSync(`${ERRORS}/keptn-dtsvc__dashboards-problem_tile-missing_scopes-problems_missing_scope.json`, 'utf8');
    server.script({ status: 403, body });
    await expect(client.dashboards.get(ID)).rejects.toThrow('token is missing scope problems.read (Read problems) — put a token with it in DT_API_TOKEN');
  });

  it('infers the needed scope when a 403 does not name one', async () => {
    const { server, client, base } = await setup();
    server.script({ status: 403, body: 'Forbidden', headers: { 'content-type': 'text/plain' } });
    await expect(client.dashboards.remove(ID)).rejects.toThrow(
      `403 from ${base}: forbidden — use a token with scope WriteConfig (Write configuration) in DT_API_TOKEN`,
    );
  });

  it('answers https:// against a plain HTTP server with the http:// address to use, at once (no retries)', async () => {
    const { server, base } = await setup();
    const tls = createApiClient({ baseUrl: base.replace(/^http:/, 'https:'), token: TOKEN, retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 } });
    try {
      const error = await tls.dashboards.list().catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/^could not reach https:\/\/127\.0\.0\.1:\d+\/e\/local: ERR_SSL_WRONG_VERSION_NUMBER — the server does not speak TLS; if it serves plain HTTP \(as dashcd serve does\), use http:\/\/127\.0\.0\.1:\d+\/e\/local$/);
      expect((error as Error).message).not.toMatch(/retry later/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await tls.close();
    }
  });

  it('suggests checking the base URL when a 404 is not an API answer', async () => {
    const { server, client } = await setup();
    server.script({ status: 404, body: '<html>Not Found</html>', headers: { 'content-type': 'text/html' } });
    await expect(client.dashboards.list()).rejects.toThrow(/no such API path — is DT_ENV_URL the environment root/);
  });

  it('reports a 200 that is not JSON as an unexpected response, not a crash', async () => {
    const { server, client } = await setup();
    server.script({ status: 200, body: '<!doctype html><title>Login</title>', headers: { 'content-type': 'text/html' } });
    const error = await client.dashboards.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
    expect((error as Error).message).toContain('body is not JSON (starts with "<!doctype html><title>Login</title>")');
  });

  it('reports a dashboard that does not match the schema with the offending path', async () => {
    const { server, client } = await setup();
    server.script({ status: 200, body: { id: ID, dashboardMetadata: { name: 'x' }, tiles: [] } });
    const error = await client.dashboards.get(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).problems).toEqual([expect.stringMatching(/^dashboardMetadata\.owner: /)]);
    server.script({ status: 200, body: { id: ID, dashboardMetadata: { name: 'x' }, tiles: [] } });
    const live = await client.dashboards.getText(ID);
    expect(() => live?.parse()).toThrow(error as Error);
  });

  it('sends the token only in the Authorization header, with JSON headers', async () => {
    const { server, client } = await setup();
    server.script({ status: 200, body: { dashboards: [] } }, { status: 204 });
    await client.dashboards.list();
    await client.dashboards.put(ID, { tiles: [] });
    const [get, put] = server.requests;
    expect(get?.headers.authorization).toBe(`Api-Token ${TOKEN}`);
    expect(get?.headers.accept).toBe('application/json');
    expect(get?.headers['content-type']).toBeUndefined();
    expect(put?.headers['content-type']).toBe('application/json');
    expect(put?.path).toBe(`/e/local/api/config/v1/dashboards/${ID}`);
    expect(put?.query.toString()).toBe('');
  });
});

describe('token redaction', () => {
  it('keeps the token out of every log line and error message, even when the server echoes it', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const { server, client } = await setup({ log });
    server.script(
      { status: 503, body: envelope(503, `overloaded while serving Api-Token ${TOKEN}`) },
      { hangUp: true },
      { status: 401, body: envelope(401, `Token ${TOKEN} is not valid`) },
    );
    const error = await client.dashboards.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    const message = (error as Error).message;
    expect(message).toContain('Token [REDACTED] is not valid');
    expect(message).not.toContain(TOKEN);
    expect(lines.filter((line) => line.includes('retrying request'))).toHaveLength(2);
    expect(lines.join('\n')).toContain('"status":503');
    expect(lines.join('\n')).toContain('"reason":"UND_ERR_SOCKET"');
    for (const line of lines) expect(line).not.toContain(TOKEN);
  });

  it("keeps the token out of a validator's refusal that quotes it (400 and 413), each text of each violation too", async () => {
    // A gateway quoting the request's headers put the token, whole, in /status, the console and CI logs.
    const { server, client } = await setup();
    const quoted = `Rejected request with Authorization Api-Token ${TOKEN}`;
    server.script(
      { status: 400, body: { error: { code: 400, message: quoted, constraintViolations: [{ path: `tiles[${TOKEN}]`, message: quoted, parameterLocation: 'PAYLOAD_BODY', location: TOKEN, detail: quoted, line: 3 }] } } },
      { status: 413, body: envelope(413, quoted) },
    );
    const refused = await client.dashboards.validate({ dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [] });
    expect(refused).toEqual({
      valid: false,
      message: 'Rejected request with Authorization Api-Token [REDACTED]',
      violations: [{ path: 'tiles[[REDACTED]]', message: 'Rejected request with Authorization Api-Token [REDACTED]', parameterLocation: 'PAYLOAD_BODY', location: '[REDACTED]', detail: 'Rejected request with Authorization Api-Token [REDACTED]', line: 3 }],
    });
    const tooLarge = await client.dashboards.validate({ dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [] }, ID);
    expect(JSON.stringify(tooLarge)).not.toContain(TOKEN);
    expect(tooLarge).toMatchObject({ valid: false, message: 'too large for the target (413: Rejected request with Authorization Api-Token [REDACTED]); split it into smaller dashboards' });
  });

  it('warns once per backoff window when many requests retry a failing target, the rest at debug', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
    const count = 12;
    // Answers go out in arrival order, so one request may meet several 503s: enough attempts that none gives up,
    // and exactly one retry per 503.
    const { server, client } = await setup({ log, retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: count + 1 } });
    server.script(...Array.from({ length: count }, () => ({ status: 503 })), ...Array.from({ length: count }, () => ({ status: 200, body: { dashboards: [] } })));
    await Promise.all(Array.from({ length: count }, () => client.dashboards.list()));
    const retries = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.msg === 'retrying request');
    expect(retries).toHaveLength(count);
    expect(retries.filter((entry) => entry.level === 40)).toHaveLength(1);
  });

  it('logs a throttled retry at debug with method, url, status and wait', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
    const { server, client, base } = await setup({ log });
    server.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 200, body: { dashboards: [] } });
    await client.dashboards.list({ owner: 'me' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 20, msg: 'retrying request', method: 'GET', url: `${base}/api/config/v1/dashboards?owner=me`, status: 429, attempt: 1 });
    expect(typeof entry.waitMs).toBe('number');
  });
});

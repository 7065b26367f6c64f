import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/client/api-client.js';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { TransportError, UnexpectedResponseError } from '../../src/client/errors.js';
import { bearerSource, PlatformAuthError } from '../../src/client/platform-auth.js';
import { DEFAULT_RETRY_POLICY } from '../../src/client/retry.js';
import { answerPadded, answerTrickling, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';

/**
 * The client against a target that is not ours to trust (security review): a body without end, a body that
 * trickles, JSON nested without end. Each must end in the client's own precise error, never in an exhausted heap, a
 * command that never ends or a stack overflow; and the client must let go of the connection.
 */

const MIB = 1024 * 1024;
const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';
const WRONG_URL_HINT = ' — is the target URL (--target, DT_ENV_URL or dashcd.yaml) the environment root?';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function hostile(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<HostileServer> {
  const server = await startHostileServer(handle);
  open.push(server);
  return server;
}

function apiClient(server: HostileServer, options: Partial<ApiClientOptions> = {}): { client: ApiClient; base: string } {
  const base = `${server.url}/e/local`;
  const client = createApiClient({ baseUrl: base, token: 'dt0c01.HOSTILE.TEST', ...options });
  open.push(client);
  return { client, base };
}

function documentsClient(server: HostileServer, retry: Partial<typeof DEFAULT_RETRY_POLICY> = {}): DocumentsClient {
  const client = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: 'dt0s16.HOSTILE' }, retry });
  open.push(client);
  return client;
}

/** A valid dashboard whose one tile holds `depth` arrays, each in the one before. */
function nestedDashboard(depth: number): string {
  const tile = `{"name":"M","tileType":"MARKDOWN","configured":true,"bounds":{"top":0,"left":0,"width":304,"height":304},"tileFilter":{},"markdown":"x","nested":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  return `{"id":"${ID}","dashboardMetadata":{"name":"Deep","owner":"a@example.com"},"tiles":[${tile}]}`;
}

describe('a response body past its limit', () => {
  it('stops reading an API answer at 16 MiB, drops the connection and fails with the limit and the path, once', async () => {
    // Four times the limit: far more than the sockets' buffers hold, so an answer written whole was read whole.
    const server = await hostile((_req, res) => answerPadded(res, { head: '{"dashboards":[],"pad":"', padBytes: 64 * MIB, tail: '"}' }));
    const { client, base } = apiClient(server);
    const error = await client.dashboards.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 200, method: 'GET', url: `${base}/api/config/v1/dashboards` });
    expect((error as Error).message).toBe(
      `unexpected 200 body from GET ${base}/api/config/v1/dashboards: the body is larger than 16 MiB, the most dashcd reads of this answer; the rest was not read${WRONG_URL_HINT}`,
    );
    expect(server.requests).toHaveLength(1);
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });

  it('refuses an answer that declares more than the limit before reading its body', async () => {
    // The declared body never comes: only refusing on the declaration ends this read.
    const server = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(16 * MIB + 1) });
      res.write('{"dashboards":[');
    });
    const { client, base } = apiClient(server);
    const error = await client.dashboards.get(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toBe(
      `unexpected 200 body from GET ${base}/api/config/v1/dashboards/${ID}: the body is larger than 16 MiB, the most dashcd reads of this answer; the rest was not read${WRONG_URL_HINT}`,
    );
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });

  it("reads a document's content up to the service's 50 MB and more than an API answer, and refuses more", async () => {
    const server = await hostile((req, res) => {
      const padBytes = req.url?.includes('/big/') ? 20 * MIB : 51 * MIB + 32 * MIB;
      answerPadded(res, { head: '', padBytes, tail: '' });
    });
    const documents = documentsClient(server);
    expect((await documents.content('big')).bytes.length).toBe(20 * MIB);
    const error = await documents.content('huge').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toBe(
      `unexpected 200 body from GET ${server.url}/platform/document/v1/documents/huge/content: the body is larger than 51 MiB, the most dashcd reads of this answer; the rest was not read${WRONG_URL_HINT}`,
    );
    expect(await server.requests[1]?.ended).toEqual({ whole: false });
  });

  it("refuses a document's metadata past the API answer's 16 MiB", async () => {
    const server = await hostile((_req, res) => answerPadded(res, { head: '{"pad":"', padBytes: 64 * MIB, tail: '"}' }));
    const error = await documentsClient(server).metadata('doc-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toContain(`GET ${server.url}/platform/document/v1/documents/doc-1/metadata: the body is larger than 16 MiB`);
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });

  it('refuses an OAuth token answer past 1 MiB, naming the endpoint', async () => {
    const server = await hostile((_req, res) => answerPadded(res, { head: '{"access_token":"', padBytes: 16 * MIB, tail: '","expires_in":300}' }));
    const tokenUrl = `${server.url}/sso/oauth2/token`;
    const source = bearerSource({ kind: 'oauth-client', clientId: 'dt0s02.CLIENT', clientSecret: 'dt0s02.CLIENT.SECRET', tokenUrl, scopes: [] });
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformAuthError);
    expect((error as Error).message).toBe(`the OAuth token endpoint ${tokenUrl} answered 200: the body is larger than 1 MiB, the most dashcd reads of this answer; the rest was not read`);
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });
});

describe('a response body that trickles', () => {
  const trickling = (): Promise<HostileServer> => hostile((_req, res) => answerTrickling(res, { text: '{"dashboards":[]}' }));

  it("ends each attempt at the client's time limit, retries a GET as the policy retries timeouts, and names the limit", async () => {
    const server = await trickling();
    const { client, base } = apiClient(server, { retry: { attemptTimeoutMs: 300, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await client.dashboards.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'ATTEMPT_TIMEOUT', attempts: 2, url: `${base}/api/config/v1/dashboards` });
    expect((error as Error).message).toBe(
      `GET ${base}/api/config/v1/dashboards: no complete answer within 300 ms, the time limit of one attempt (after 2 attempts) — the target is too slow; retry later`,
    );
    expect(server.requests).toHaveLength(2);
    expect(await Promise.all(server.requests.map((request) => request.ended))).toEqual([{ whole: false }, { whole: false }]);
  });

  it('does not send a create again after its attempt timed out: the target may have made it', async () => {
    const server = await trickling();
    const { client } = apiClient(server, { retry: { attemptTimeoutMs: 300, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await client.dashboards.create({ dashboardMetadata: { name: 'New', owner: 'a' }, tiles: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'ATTEMPT_TIMEOUT', attempts: 1, method: 'POST' });
    expect(server.requests).toHaveLength(1);
  });

  it('ends an attempt still running at the retry deadline, and says to raise DASHCD_RETRY_DEADLINE', async () => {
    const server = await trickling();
    const { client, base } = apiClient(server, { retry: { deadlineMs: 400 } });
    const error = await client.dashboards.get(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toBe(
      `GET ${base}/api/config/v1/dashboards/${ID}: no complete answer within 400 ms, the retry deadline — the target is too slow; retry later or raise DASHCD_RETRY_DEADLINE`,
    );
    expect(server.requests).toHaveLength(1);
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });

  it("ends a document client's attempt at its time limit too", async () => {
    const server = await trickling();
    const error = await documentsClient(server, { attemptTimeoutMs: 300, maxAttempts: 1 }).content('doc-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toBe(
      `GET ${server.url}/platform/document/v1/documents/doc-1/content: no complete answer within 300 ms, the time limit of one attempt — the target is too slow; retry later`,
    );
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });

  it('ends an OAuth token request at the time limit of an attempt', async () => {
    const server = await trickling();
    const tokenUrl = `${server.url}/sso/oauth2/token`;
    const credential = { kind: 'oauth-client', clientId: 'dt0s02.CLIENT', clientSecret: 'dt0s02.CLIENT.SECRET', tokenUrl, scopes: [] } as const;
    const error = await bearerSource(credential, { policy: { ...DEFAULT_RETRY_POLICY, attemptTimeoutMs: 300 } }).token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformAuthError);
    expect((error as Error).message).toBe(`the OAuth token endpoint ${tokenUrl} gave no complete answer within 300 ms, the time limit of one attempt`);
    expect(await server.requests[0]?.ended).toEqual({ whole: false });
  });
});

describe('JSON nested without end', () => {
  it('refuses a live dashboard nested deeper than a target accepts with the precise error, not a stack overflow', async () => {
    const server = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(nestedDashboard(200_000));
    });
    const { client, base } = apiClient(server);
    // Not the dashboard itself if it comes back: showing it would overflow the stack of the failure's report.
    const error = await client.dashboards.get(ID).then(() => 'answered', (e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toBe(
      `unexpected 200 body from GET ${base}/api/config/v1/dashboards/${ID}: nested deeper than 64 levels of objects and arrays, more than a target accepts${WRONG_URL_HINT}`,
    );
  });

  it('reads one nested to the limit: the dashboard, its tiles, a tile and 61 arrays are 64 levels', async () => {
    const server = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(nestedDashboard(61));
    });
    const { client } = apiClient(server);
    expect((await client.dashboards.get(ID))?.dashboardMetadata.name).toBe('Deep');
  });
});

describe('a document listing that never ends', () => {
  it('fails as a target does (UnexpectedResponseError, exit 4) when its page keys come round again, after those pages only', async () => {
    // K0, K1, K2, K0 … sent 10,000 requests, then ended in an unexpected error.
    let requests = 0;
    const server = await hostile((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ documents: [], totalCount: 0, nextPageKey: `K${requests++ % 3}` }));
    });
    const failure = await documentsClient(server).list().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(UnexpectedResponseError);
    expect((failure as Error).message).toMatch(/^listing GET .*\/documents\?page-key=K2 stopped: its page keys go round in a loop \(one came again after 4 pages\)$/);
    expect(requests).toBe(4);
  });
});

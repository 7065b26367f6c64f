import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/client/api-client.js';
import { ApiError, TransportError, isUnreachable } from '../../src/client/errors.js';
import { unusedPort as closedPort } from '../helpers/cli.js';
import { faultClientPerTest, type FaultClient } from '../helpers/fault-client.js';
import { startFaultServer, type FaultServerOptions } from '../helpers/fault-server.js';

const TOKEN = 'dt0c01.RETRYTESTPUBLICPART0000.RETRYTESTSECRETPART0000000000000000000000000000000000000000000';
const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';
const dashboard = { id: ID, dashboardMetadata: { name: 'Retry', owner: 'me' }, tiles: [] };

const startFaultClient = faultClientPerTest();

function setup(options: Partial<ApiClientOptions> = {}, fallback: FaultServerOptions['fallback'] = { status: 200, body: dashboard }): Promise<FaultClient> {
  return startFaultClient({ fallback }, { token: TOKEN, retry: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 5, deadlineMs: 10_000 }, ...options });
}

describe('client retries against a scripted server', () => {
  it('converges after two 429s with Retry-After: 1, waiting at least a second before each retry', async () => {
    const { server, client } = await setup();
    server.script(
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '1' } },
    );
    const got = await client.dashboards.get(ID);
    expect(got).toEqual(dashboard);
    expect(server.requests).toHaveLength(3);
    for (const gap of server.gaps()) expect(gap).toBeGreaterThanOrEqual(990);
  });

  it('converges after 503s on PUT and respects each Retry-After', async () => {
    const { server, client } = await setup();
    server.script(
      { status: 503, headers: { 'retry-after': '1' }, match: { method: 'PUT' } },
      { status: 201, match: { method: 'PUT' } },
    );
    expect(await client.dashboards.put(ID, dashboard)).toBe('created');
    expect(server.requests.map((r) => r.answer)).toEqual([503, 201]);
    expect(server.gaps()[0]).toBeGreaterThanOrEqual(990);
    // Both attempts carry the whole body: the bytes encoded once are sent again, not spent by the first attempt.
    expect(server.requests.map((r) => r.body)).toEqual([JSON.stringify(dashboard), JSON.stringify(dashboard)]);
  });

  it('honours X-RateLimit-Reset given in microseconds, waiting from when the 429 was sent', async () => {
    // The reset is computed as the 429 is answered: time spent before (setup, a loaded machine) cannot shorten it.
    const RESET_MS = 600;
    let sentAt: number | undefined;
    const { server, client } = await setup({}, () => {
      if (sentAt !== undefined) return { status: 200, body: dashboard };
      sentAt = performance.now();
      return { status: 429, headers: { 'x-ratelimit-reset': String((Date.now() + RESET_MS) * 1000) } };
    });
    await client.dashboards.get(ID);
    expect(server.requests.map((r) => r.answer)).toEqual([429, 200]);
    // The backoff alone is at most 50 ms here; 10 ms allows for Date (the header) and performance (the times) differing.
    expect((server.requests[1]?.at ?? 0) - (sentAt ?? 0)).toBeGreaterThanOrEqual(RESET_MS - 10);
  });

  it('does not retry a 400 and reports it as an ApiError', async () => {
    const { server, client } = await setup();
    server.script({
      status: 400,
      body: { error: { code: 400, message: 'Constraints violated.', constraintViolations: [{ path: 'tiles', message: 'Tiles configuration is invalid.', parameterLocation: 'PAYLOAD_BODY', location: null }] } },
    });
    const error = await client.dashboards.put(ID, dashboard).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'API_ERROR', status: 400, attempts: 1, method: 'PUT' });
    expect((error as ApiError).message).toContain('tiles: Tiles configuration is invalid.');
    expect(server.requests).toHaveLength(1);
  });

  it('fails at once with the 429 when its Retry-After lies past the deadline', async () => {
    // Waiting for the deadline (60 s) or for Retry-After (120 s) would both show; a busy machine's pauses would not.
    const { server, client } = await setup({ retry: { deadlineMs: 60_000 } });
    server.script({ status: 429, headers: { 'retry-after': '120' } });
    const started = Date.now();
    const error = await client.dashboards.get(ID).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(error).toMatchObject({ code: 'API_ERROR', status: 429 });
    expect((error as Error).message).toMatch(/^429 from GET http:\/\/127\.0\.0\.1:\d+\/e\/local\/api\/config\/v1\/dashboards\/.*rate limited/);
    expect(server.requests).toHaveLength(1);
  });

  it('stops retrying a failing target at the overall deadline with the last status', async () => {
    const { server, client } = await setup({ retry: { deadlineMs: 400, maxAttempts: 100, baseDelayMs: 50, maxDelayMs: 100 } });
    for (let i = 0; i < 100; i += 1) server.script({ status: 503, headers: { 'retry-after': '0.1' } });
    const started = Date.now();
    const error = await client.dashboards.list().catch((e: unknown) => e);
    // All 100 attempts, 100 ms apart, would take 10 s: stopping at the deadline is far below that, even on a busy machine.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toMatchObject({ status: 503 });
    expect((error as ApiError).attempts).toBe(server.requests.length);
    expect(server.requests.length).toBeGreaterThan(1);
    expect((error as Error).message).toContain(`gave up after ${server.requests.length} attempts`);
  });

  it('stops after maxAttempts', async () => {
    const { server, client } = await setup({ retry: { maxAttempts: 3 } });
    for (let i = 0; i < 5; i += 1) server.script({ status: 502 });
    await expect(client.dashboards.get(ID)).rejects.toMatchObject({ status: 502, attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('turns a refused connection into a TransportError after the retries', async () => {
    const port = await closedPort();
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${port}/e/local`, token: TOKEN, retry: { baseDelayMs: 5, maxAttempts: 3 } });
    const error = await client.dashboards.list().catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(TransportError);
    expect(isUnreachable(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TRANSPORT', reason: 'ECONNREFUSED', attempts: 3 });
    expect((error as Error).message).toBe(
      `could not reach http://127.0.0.1:${port}/e/local: ECONNREFUSED (after 3 attempts) — is the target running? (DT_ENV_URL)`,
    );
  });

  it('retries a GET whose connection is dropped without an answer', async () => {
    const { server, client } = await setup();
    server.script({ hangUp: true });
    expect(await client.dashboards.get(ID)).toEqual(dashboard);
    expect(server.requests.map((r) => r.answer)).toEqual(['hang-up', 200]);
  });

  it('does not repeat a POST create whose connection dropped, since it may have been applied', async () => {
    const { server, client } = await setup();
    server.script({ hangUp: true });
    await expect(client.dashboards.create(dashboard)).rejects.toBeInstanceOf(TransportError);
    expect(server.requests).toHaveLength(1);
  });

  it('repeats a POST create refused with 429', async () => {
    const { server, client } = await setup();
    server.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 201, body: { id: ID, name: 'Retry' } });
    expect(await client.dashboards.create(dashboard)).toEqual({ id: ID, name: 'Retry' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a request whose headers do not arrive within the timeout', async () => {
    // undici checks the headers timeout on a coarse (~1 s) timer, so the stall must clearly outlast that.
    const { server, client } = await setup({ requestTimeoutMs: 150 });
    server.script({ status: 200, body: dashboard, delayMs: 3_000 });
    expect(await client.dashboards.get(ID)).toEqual(dashboard);
    expect(server.requests).toHaveLength(2);
  });

  it('injects faults in front of an upstream server and then forwards to it', async () => {
    const upstream = await startFaultServer({ fallback: { status: 200, body: { dashboards: [{ id: ID, name: 'upstream' }] } } });
    try {
      const { server, client } = await startFaultClient({ upstream: upstream.url }, { token: TOKEN, retry: { baseDelayMs: 5 } });
      server.script({ status: 503, headers: { 'retry-after': '0' } });
      expect(await client.dashboards.list({ owner: 'me' })).toEqual([{ id: ID, name: 'upstream' }]);
      expect(server.requests.map((r) => r.answer)).toEqual([503, 'proxied']);
      expect(upstream.requests.map((r) => `${r.path}?${r.query.toString()}`)).toEqual(['/e/local/api/config/v1/dashboards?owner=me']);
      expect(upstream.requests[0]?.headers.authorization).toBe(`Api-Token ${TOKEN}`);
    } finally {
      await upstream.close();
    }
  });

  it('lets a handler answer each request as it arrives, forward() passing on the upstream answer with all its headers', async () => {
    const upstream = await startFaultServer({ fallback: { status: 200, headers: { etag: '"v7"', 'x-ratelimit-limit': '50' }, body: { ok: true } } });
    try {
      let arrived = 0;
      const { server } = await startFaultClient({
        upstream: upstream.url,
        handle: (request, forward) => {
          arrived += 1;
          if (request.path === '/boom') throw new Error('handler failed');
          return arrived === 1 ? { status: 429, headers: { 'x-arrived': String(arrived) } } : forward();
        },
      }, { token: TOKEN });
      const throttled = await fetch(`${server.url}/a`);
      expect([throttled.status, throttled.headers.get('x-arrived')]).toEqual([429, '1']);
      const forwarded = await fetch(`${server.url}/a?n=2`, { method: 'POST', body: 'payload' });
      expect(forwarded.status).toBe(200);
      expect(forwarded.headers.get('etag')).toBe('"v7"');
      expect(forwarded.headers.get('x-ratelimit-limit')).toBe('50');
      expect(await forwarded.json()).toEqual({ ok: true });
      await expect(fetch(`${server.url}/boom`)).rejects.toThrow();
      expect(server.requests.map((r) => r.answer)).toEqual([429, 200, 'hang-up']);
      expect(upstream.requests.map((r) => `${r.method} ${r.path}?${r.query.toString()} ${r.body}`)).toEqual(['POST /a?n=2 payload']);
    } finally {
      await upstream.close();
    }
  });

  it('abandons a retry wait when the client signal aborts', async () => {
    const controller = new AbortController();
    const { server, client } = await setup({ signal: controller.signal, retry: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 5, deadlineMs: 60_000 } });
    server.script({ status: 503, headers: { 'retry-after': '30' } });
    setTimeout(() => controller.abort(new Error('daemon stopping')), 100);
    const started = Date.now();
    await expect(client.dashboards.get(ID)).rejects.toThrow('daemon stopping');
    // The retry wait is 30 s (within the default 60 s deadline); ending it at the abort is far below that, even on a
    // busy machine.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(server.requests).toHaveLength(1);
  });
});

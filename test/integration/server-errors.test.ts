import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/schema/error-envelope.js';
import {
  api,
  dashboardsUrl,
  expectEnvelope,
  minimalDashboard,
  rawApi,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';

const MB = 1024 * 1024;

/** Parses a raw HTTP/1.1 response (status line, headers, body) read from a socket. */
function parseRaw(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** Every response of a raw exchange, in order. */
function parseAll(raw: string): ReturnType<typeof parseRaw>[] {
  return raw.split(/(?=HTTP\/1\.1 \d{3} )/).filter((part) => part !== '').map(parseRaw);
}

/** Writes `first`, then keeps writing `more` until the server answers; resolves with the raw response text. */
function exchange(port: number, first: string, more?: () => Buffer): Promise<{ raw: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let raw = '';
    let answered = false;
    socket.on('data', (chunk) => {
      raw += chunk.toString('utf8');
      answered = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (answered ? undefined : reject(error)));
    socket.on('close', () => resolve({ raw, closed: true }));
    socket.write(first);
    const pump = (): void => {
      if (answered || socket.destroyed || !more) return;
      if (socket.write(more())) setImmediate(pump);
      else socket.once('drain', pump);
    };
    pump();
  });
}

describe('bad input and unknown routes', () => {
  let server: TestServer;
  let port: number;
  let auth: string;
  beforeAll(async () => {
    server = await startTestServer({ timeouts: { headersMs: 400, requestMs: 3_000 } });
    port = server.server.port;
    auth = `Api-Token ${server.token}`;
  });
  afterAll(async () => server.close());

  const post = (body: string, contentType = 'application/json') =>
    api(dashboardsUrl(server), { method: 'POST', body, headers: { authorization: auth, 'content-type': contentType } });

  it('answers 413 to a declared Content-Length over 1 MB before the body is sent, and closes', async () => {
    const head =
      `POST /e/local/api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${50 * MB}\r\n\r\n{"dash`;
    const { raw, closed } = await exchange(port, head);
    const response = parseRaw(raw);
    expect(response.status).toBe(413);
    expect(response.headers['connection']).toBe('close');
    expect(ErrorEnvelope.parse(JSON.parse(response.body))).toEqual({ error: { code: 413, message: `Request body larger than ${MB} bytes.` } });
    expect(closed).toBe(true);
  });

  it('answers Expect: 100-continue with 413 for an oversized body and with 100 Continue for one within the limit', async () => {
    const request = (length: number) =>
      `POST /e/local/api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const refused = await exchange(port, request(5 * MB));
    expect(refused.raw.startsWith('HTTP/1.1 413 ')).toBe(true);
    const body = JSON.stringify(minimalDashboard('continued'));
    const accepted = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let raw = '';
      socket.on('data', (chunk) => {
        raw += chunk.toString('utf8');
        if (raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && raw.length === 25) socket.write(body);
      });
      socket.on('close', () => resolve(raw));
      socket.on('error', reject);
      socket.write(request(Buffer.byteLength(body)));
    });
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  it('answers 413 to a chunked body as soon as it passes 1 MB, without reading the rest', async () => {
    const head =
      `POST /e/local/api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    let sent = 0;
    const chunk = Buffer.from(`10000\r\n${' '.repeat(0x10000)}\r\n`);
    const { raw } = await exchange(port, head, () => {
      sent += 0x10000;
      return chunk;
    });
    expect(parseRaw(raw).status).toBe(413);
    // The server stopped at the limit; the client got the answer long before it would have finished 1 GB.
    expect(sent).toBeLessThan(64 * MB);
  });

  it('accepts a body of exactly 1 MB and refuses one byte more', async () => {
    const base = JSON.stringify(minimalDashboard('big', { padding: '' }));
    const exact = JSON.stringify(minimalDashboard('big', { padding: 'x'.repeat(MB - base.length) }));
    expect(Buffer.byteLength(exact)).toBe(MB);
    expect((await post(exact)).status).toBe(201);
    const over = JSON.stringify(minimalDashboard('big', { padding: 'x'.repeat(MB - base.length + 1) }));
    expectEnvelope(await post(over), 413);
  });

  it.each([
    ['text/plain', "Unsupported content type 'text/plain': send the body as application/json (UTF-8)."],
    ['application/x-www-form-urlencoded', /^Unsupported content type/],
    ['application/json; charset=iso-8859-1', /^Unsupported content type/],
  ])('answers 415 to a %s body', async (type, message) => {
    expectEnvelope(await post(JSON.stringify(minimalDashboard()), type), 415, message);
  });

  it('answers 415 to a body without a content type', async () => {
    const response = await rawApi(server.baseUrl, '/api/config/v1/dashboards', {
      method: 'POST',
      body: JSON.stringify(minimalDashboard()),
      headers: { authorization: auth },
    });
    expectEnvelope(response, 415, 'Unsupported content type none: send the body as application/json (UTF-8).');
  });

  it('answers malformed JSON with a 400 naming line and column', async () => {
    expectEnvelope(await post('{\n  "dashboardMetadata": {,\n}'), 400, "Malformed JSON near line 2 column 25: Expected a double-quoted member name.");
    expectEnvelope(await post(''), 400, 'The request body is empty: send a JSON document.');
  });

  it('answers a number that overflows to Infinity with a 400 and stores nothing', async () => {
    const body = `{"dashboardMetadata":{"name":"huge","owner":"o"},"tiles":[],"x":1${'0'.repeat(250)}e99}`;
    expectEnvelope(await post(body), 400, /^Malformed JSON near line 1 column \d+: Number out of range\.$/);
    const listed = await api(dashboardsUrl(server), { token: server.token });
    expect(JSON.stringify(listed.json)).not.toContain('"huge"');
  });

  it('answers 20,000 levels of nesting with a 400, and keeps serving', async () => {
    const deep = `{"dashboardMetadata":{"name":"d","owner":"o"},"tiles":[],"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expectEnvelope(await post(deep), 400, /^JSON nested too deeply near line 1 column \d+: Nesting deeper than 64 levels\.$/);
    expect((await api(dashboardsUrl(server), { token: server.token })).status).toBe(200);
  });

  it('refuses __proto__ and constructor members at any depth with their paths', async () => {
    const body = '{"dashboardMetadata":{"name":"p","owner":"o","__proto__":{"admin":true}},"tiles":[{"constructor":{}}]}';
    const envelope = expectEnvelope(await post(body), 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations?.map((v) => v.path)).toEqual(['dashboardMetadata.__proto__', 'tiles[0].constructor']);
  });

  it('refuses a body that is not UTF-8', async () => {
    const response = await fetch(dashboardsUrl(server), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect(ErrorEnvelope.parse(await response.json()).error.message).toBe('The request body is not valid UTF-8.');
  });

  it.each([
    ['DELETE', '/api/config/v1/dashboards', 'GET, HEAD, POST'],
    ['PATCH', '/api/config/v1/dashboards/6a98d7bc-abb9-44f8-ae6a-73e68e71812a', 'DELETE, GET, HEAD, PUT'],
    ['GET', '/api/config/v1/dashboards/6a98d7bc-abb9-44f8-ae6a-73e68e71812a/validator', 'POST'],
    ['POST', '/api/v1/deployment/installer/agent/unix/default/latest', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const response = await api(`${server.url}${path}`, { method, token: server.token });
    expectEnvelope(response, 405, `Method not allowed here; allowed: ${allow}.`);
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('answers unknown paths and environments with 404 envelopes', async () => {
    expectEnvelope(await api(`${server.url}/api/config/v1/nothing`, { token: server.token }), 404, 'No resource at /e/local/api/config/v1/nothing');
    expectEnvelope(await api(`${server.baseUrl}/e/unknown/api/config/v1/dashboards`, { token: server.token }), 404, 'Environment unknown not found');
    expectEnvelope(await api(`${server.baseUrl}/e/Bad..Env/api/config/v1/dashboards`, { token: server.token }), 404, 'Environment Bad..Env not found');
    expectEnvelope(await api(`${server.baseUrl}/e/`, { token: server.token }), 404);
    expectEnvelope(await api(`${server.baseUrl}/`, { token: server.token }), 404, 'No resource at /: the dashboards API is at /e/{environment}/api/config/v1/dashboards');
  });

  it('keeps the connection after refusing a request that has no body (404, 401), in the turn its headers arrived', async () => {
    // Pipelined in one write: every refusal is decided before the parser has finished the request it refuses. Each
    // used to close the connection, so only the first was answered (and the daemon opened one per new dashboard).
    const get = (path: string, authorization = `Authorization: ${auth}\r\n`) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${authorization}\r\n`;
    const requests = [
      get(`/e/local/api/config/v1/dashboards/${randomUUID()}`),
      get(`/e/local/api/config/v1/dashboards/${randomUUID()}`, ''),
      get('/e/local/api/config/v1/nothing'),
      get('/e/local/platform/document/v1/documents/no-such-document', ''),
      'GET /e/local/api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ];
    const { raw } = await exchange(port, requests.join(''));
    const answers = raw.split(/(?=HTTP\/1\.1 \d{3} )/).map(parseRaw);
    expect(answers.map((a) => a.status)).toEqual([404, 401, 404, 401, 401]);
    expect(answers.slice(0, -1).map((a) => a.headers['connection'])).toEqual(['keep-alive', 'keep-alive', 'keep-alive', 'keep-alive']);
  });

  it.each([
    ['a Content-Length', 'Content-Length: 10\r\n\r\n{"da'],
    ['chunked', 'Transfer-Encoding: chunked\r\n\r\n4\r\n{"da\r\n'],
  ])('closes the connection after refusing a request whose body (%s) it left unread', async (_, rest) => {
    const { raw, closed } = await exchange(port, `POST /e/local/api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${rest}`);
    const response = parseRaw(raw);
    expect(response.status).toBe(401);
    expect(response.headers['connection']).toBe('close');
    expect(closed).toBe(true);
  });

  it('answers the writes and reads pipelined before garbage, then the garbage with a 400 (the writes were done: their answers must say so)', async () => {
    const body = JSON.stringify(minimalDashboard('pipelined'));
    const write = (method: string, path: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const id = randomUUID();
    const garbage = 'GARBAGE\r\n\r\n';
    const put = parseAll((await exchange(port, write('PUT', `/e/local/api/config/v1/dashboards/${id}`) + garbage)).raw);
    expect(put.map((a) => a.status)).toEqual([201, 400]);
    expect(ErrorEnvelope.parse(JSON.parse(put[1]?.body ?? '')).error.message).toBe('Malformed HTTP request.');
    // Garbage that keeps coming (each chunk reports the parser's error again) still gets one 400.
    const post = parseAll((await exchange(port, write('POST', '/e/local/api/config/v1/dashboards') + garbage, () => Buffer.from(garbage))).raw);
    expect(post.map((a) => a.status)).toEqual([201, 400]);
    const created = (JSON.parse(post[0]?.body ?? '{}') as { id: string }).id;
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`;
    const reads = parseAll((await exchange(port, get(`/e/local/api/config/v1/dashboards/${id}`) + get(`/e/local/api/config/v1/dashboards/${created}`) + garbage)).raw);
    expect(reads.map((a) => a.status)).toEqual([200, 200, 400]);
  });

  it.each([
    ['CONNECT', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', 405, 'Method not allowed here; allowed: GET, HEAD, POST, PUT, DELETE.'],
    ['an expectation other than 100-continue', `GET /api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n`, 417, 'Expectation failed: the only expectation served is 100-continue.'],
    ['an HTTP/1.1 request without Host', 'GET /api/config/v1/dashboards HTTP/1.1\r\n\r\n', 400, 'Missing Host header: an HTTP/1.1 request must have one.'],
  ])('answers %s with its status and the envelope, and closes', async (_what, request, status, message) => {
    const { raw, closed } = await exchange(port, request);
    const response = parseRaw(raw);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ErrorEnvelope.parse(JSON.parse(response.body)).error).toEqual({ code: status, message });
    expect(closed).toBe(true);
  });

  it('serves an HTTP/1.0 request without Host (Host is HTTP/1.1’s)', async () => {
    const response = parseRaw((await exchange(port, `GET /api/config/v1/dashboards HTTP/1.0\r\nAuthorization: ${auth}\r\n\r\n`)).raw);
    expect(response.status).toBe(200);
  });

  it('answers a literal .. as the dashboard id itself with the UUID 400 (never a path)', async () => {
    const response = parseRaw((await exchange(port, `GET /e/local/api/config/v1/dashboards/.. HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`)).raw);
    expect(response.status).toBe(400);
    expect(ErrorEnvelope.parse(JSON.parse(response.body)).error.constraintViolations).toEqual([{ path: 'id', message: 'Not a valid UUID.', parameterLocation: 'PATH', location: null }]);
  });

  it('answers oversized headers with a 431 envelope', async () => {
    const { raw } = await exchange(port, `GET /api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const response = parseRaw(raw);
    expect(response.status).toBe(431);
    expect(ErrorEnvelope.parse(JSON.parse(response.body)).error.code).toBe(431);
  });

  it('answers a malformed request line with a 400 envelope', async () => {
    const response = parseRaw((await exchange(port, 'THIS IS NOT HTTP\r\n\r\n')).raw);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ErrorEnvelope.parse(JSON.parse(response.body)).error.message).toBe('Malformed HTTP request.');
  });

  it('closes a connection answered with a client error whose client keeps its side open (a descriptor held for good)', async () => {
    // A half-open client: it reads the 408 and the server's end, and never closes, trickling a byte now and then. Ended,
    // the socket was out of Node's timeout sweep and still read, so 200 of them held a server's last descriptors (503
    // to everyone) for as long as they stayed. A server that has let go answers the next byte with a reset.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let text = '';
      let trickle: NodeJS.Timeout | undefined;
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => (trickle = setInterval(() => socket.write('x'), 100)));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(trickle);
        resolve(text);
      });
      socket.write('GET /api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\n');
      setTimeout(() => reject(new Error('the server still holds the connection 20 s on')), 20_000).unref();
    });
    expect(parseRaw(raw).status).toBe(408);
  });

  it('answers a client that never finishes its headers with a 408 envelope and closes', async () => {
    const started = Date.now();
    const { raw, closed } = await exchange(port, 'GET /api/config/v1/dashboards HTTP/1.1\r\nHost: x\r\n');
    expect(parseRaw(raw).status).toBe(408);
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

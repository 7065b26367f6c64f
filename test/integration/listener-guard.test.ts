import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openEndpoint } from '../../src/daemon/daemon-endpoint.js';
import { DaemonStatus } from '../../src/daemon/daemon-status.js';
import { silentLogger } from '../../src/lib/logger.js';
import { startTestServer } from '../helpers/server.js';

/** A handler that throws while answering: a bug, which must cost that request a 500, never the process. */
const throwing = (req: { url?: string }): boolean => {
  if (req.url === '/boom') throw new Error('a bug in a route');
  return false;
};

/** The daemon's status-only listener on a free loopback port, with `routes` beside the status endpoints. */
function statusOnly(routes: Parameters<typeof openEndpoint>[3], host = '127.0.0.1'): ReturnType<typeof openEndpoint> {
  const options = { listen: { host, port: 0 }, cwd: '/', dataDir: 'unused', simulateEvents: false, log: silentLogger(), embedded: false, openDefault: true };
  return openEndpoint(options, new DaemonStatus(), new AbortController().signal, routes);
}

describe('every listener turns a throwing handler into a 500 and goes on', () => {
  it('the API server (its extra handler, as the console and status endpoints are mounted)', async () => {
    const server = await startTestServer({ extraHandler: throwing });
    try {
      const boom = await fetch(`${server.baseUrl}/boom`);
      expect(boom.status).toBe(500);
      expect(await boom.json()).toEqual({ error: { code: 500, message: 'Internal error: the request could not be handled.' } });
      expect((await fetch(`${server.url}/api/config/v1/dashboards`, { headers: { authorization: `Api-Token ${server.token}` } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("the daemon's status-only listener", async () => {
    const endpoint = await statusOnly([throwing]);
    try {
      expect((await fetch(`${endpoint.statusUrl}/boom`)).status).toBe(500);
      expect((await fetch(`${endpoint.statusUrl}/healthz`)).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });
});

function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the daemon's status endpoints on a loopback listener (DNS rebinding)", () => {
  it('answer under a loopback name and their own port, 421 under any other', async () => {
    const endpoint = await statusOnly([], '127.0.0.1');
    try {
      const port = new URL(endpoint.statusUrl).port;
      for (const path of ['/status', '/healthz', '/metrics']) {
        expect(await statusWithHost(`${endpoint.statusUrl}${path}`, `localhost:${port}`), path).toBe(200);
        expect(await statusWithHost(`${endpoint.statusUrl}${path}`, `rebind.attacker.example:${port}`), path).toBe(421);
      }
    } finally {
      await endpoint.close();
    }
  });
});

describe("the daemon's status endpoints on a network address", () => {
  it('answer any Host (probes and scrapers name the machine or pod address)', async () => {
    const endpoint = await statusOnly([], '0.0.0.0');
    try {
      const port = new URL(endpoint.statusUrl).port;
      expect(await statusWithHost(`http://127.0.0.1:${port}/healthz`, `10.1.2.3:${port}`)).toBe(200);
    } finally {
      await endpoint.close();
    }
  });
});

describe("the daemon's status-only listener and a body it does not read", () => {
  it('answers 404 (and 405, 421 on a status path) with connection: close at once, without reading a declared 9 PB to its end', async () => {
    const endpoint = await statusOnly([], '127.0.0.1');
    try {
      const port = Number(new URL(endpoint.statusUrl).port);
      for (const [path, host, status] of [['/nope', `127.0.0.1:${port}`, 404], ['/status', `127.0.0.1:${port}`, 405], ['/status', 'rebound.example', 421]] as const) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        let raw = '';
        socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.write(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 9007199254740993\r\n\r\n{"a":`);
        await closed;
        expect(raw.startsWith(`HTTP/1.1 ${status} `), raw).toBe(true);
        expect(raw.toLowerCase()).toContain('connection: close');
      }
      // A GET, which declares no body, keeps its connection.
      const kept = await fetch(`${endpoint.statusUrl}/nope`);
      expect([kept.status, kept.headers.get('connection')]).toEqual([404, 'keep-alive']);
      expect(await kept.json()).toEqual({ error: { code: 404, message: 'Not found: this daemon serves /healthz, /status, /metrics and its console at /ui' } });
    } finally {
      await endpoint.close();
    }
  });
});

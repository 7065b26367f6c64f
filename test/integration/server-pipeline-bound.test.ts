import { request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, MAX_OWED_RESPONSES } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/lib/logger.js';
import { waitFor } from '../helpers/wait.js';

/*
 * One connection pipelining requests whose answers take a while (the console's first read opens the Document store):
 * Node read and dispatched all of them, 100,000 in one write held 2.6 GB. A connection may owe MAX_OWED_RESPONSES
 * responses; the first request past them is answered 503 in its turn and the connection closed, read no further.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose handler holds every answer until `release()`, counting the requests it was handed. */
async function holdingServer(): Promise<{ port: number; handled: () => number; release: () => void }> {
  let handled = 0;
  let held: (() => void)[] | undefined = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    handled += 1;
    const answer = (): void => void res.end(req.url);
    if (held) held.push(answer);
    else answer();
  };
  server = await listen(handler, '127.0.0.1', 0, { log: silentLogger() });
  const { port } = server.address() as { port: number };
  const release = (): void => {
    const waiting = held ?? [];
    held = undefined;
    for (const answer of waiting) answer();
  };
  return { port, handled: () => handled, release };
}

/** Writes `count` pipelined GETs on one connection; resolves with what came back once the server closes it, or once `until` says. */
function pipeline(port: number, count: number, until: (text: string) => boolean = () => false, onSent?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (until(text)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
    socket.write(Array.from({ length: count }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''), (error) => (error ? reject(error) : onSent?.()));
  });
}

describe('a connection pipelining requests that are slow to answer', () => {
  it('answers the first request past its bound 503 in its turn, after every request handled, and closes; the rest never handled', async () => {
    const { port, handled, release } = await holdingServer();
    const releaseOnceBound = (): void => void (handled() === MAX_OWED_RESPONSES ? release() : setImmediate(releaseOnceBound));
    // All in one read of the server (no unread bytes to turn its close into a reset).
    const answered = await pipeline(port, MAX_OWED_RESPONSES + 10, () => false, releaseOnceBound);
    // Every request handled is answered (a pipelined write's client learns it was done), then the 503, then the close.
    expect(answered.split('HTTP/1.1 200 ').length - 1).toBe(MAX_OWED_RESPONSES);
    expect(answered.indexOf('HTTP/1.1 503 Service Unavailable\r\n')).toBeGreaterThan(answered.indexOf(`/${MAX_OWED_RESPONSES - 1}`));
    expect(answered).toContain('connection: close');
    expect(answered).toContain(`More than ${MAX_OWED_RESPONSES} requests pipelined on one connection`);
    expect(handled()).toBe(MAX_OWED_RESPONSES);
  });

  it('reads a flood no further than its bound: 100,000 pipelined requests are not all parsed, and other connections go on', async () => {
    const { port, handled, release } = await holdingServer();
    let emitted = 0;
    // Node's mark that it reads the socket no further: a plain `socket.pause()` it undoes as each request ends.
    const marks: (boolean | undefined)[] = [];
    server?.on('request', (req: IncomingMessage) => {
      emitted += 1;
      if (emitted === MAX_OWED_RESPONSES + 1) setImmediate(() => marks.push((req.socket as { _paused?: boolean })._paused, req.socket.isPaused()));
    });
    const releaseOnceBound = (): void => void (handled() === MAX_OWED_RESPONSES && marks.length > 0 ? release() : setImmediate(releaseOnceBound));
    await pipeline(port, 100_000, () => false, releaseOnceBound);
    expect(marks).toEqual([true, true]);
    expect(handled()).toBe(MAX_OWED_RESPONSES);
    // What reached the server is what a read or two held, not the 100,000 written (it parsed and dispatched all).
    expect(emitted).toBeLessThan(10_000);
    const other = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/after' }, (res) => resolve(res.statusCode ?? 0)).on('error', reject).end();
    });
    expect(other).toBe(200);
  });

  it('within its bound, every request is answered, in order', async () => {
    const { port, handled, release } = await holdingServer();
    const count = (text: string): number => text.split('HTTP/1.1 200 ').length - 1;
    const answered = await pipeline(port, MAX_OWED_RESPONSES, (text) => count(text) === MAX_OWED_RESPONSES && text.endsWith(`/${MAX_OWED_RESPONSES - 1}`), () => {
      const releaseWhenAllArrived = (): void => void (handled() === MAX_OWED_RESPONSES ? release() : setImmediate(releaseWhenAllArrived));
      releaseWhenAllArrived();
    });
    expect(count(answered)).toBe(MAX_OWED_RESPONSES);
    expect([...answered.matchAll(/\r\n\r\n(\/\d+)/g)].map((m) => m[1])).toEqual(Array.from({ length: MAX_OWED_RESPONSES }, (_, i) => `/${i}`));
  });

  it('lets go of a connection read no further whose earlier answer never comes, once a request may take no longer', async () => {
    // Paused, it would not see its client hang up: a stalled answer ahead of the 503 held the connection for good.
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      if (req.url !== '/0') res.end(req.url);
    };
    server = await listen(handler, '127.0.0.1', 0, { log: silentLogger(), timeouts: { headersMs: 500, requestMs: 1_000, keepAliveMs: 500, shutdownGraceMs: 1_000 } });
    const { port } = server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(Array.from({ length: MAX_OWED_RESPONSES + 5 }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    const connections = (): Promise<number> => new Promise((resolve, reject) => server?.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    await waitFor(async () => ((await connections()) === 1 ? true : undefined), { what: 'the connection open' });
    socket.destroy();
    await waitFor(async () => ((await connections()) === 0 ? true : undefined), { what: 'the server to let go of the connection', timeoutMs: 15_000 });
  });
});

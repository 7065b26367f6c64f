import { request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, MAX_OWED_RESPONSES } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/lib/logger.js';

/*
 * One connection pipelining requests whose answers take a while (the console's first read opens the Document store):
 * Node read and dispatched all of them, 100,000 in one write held 2.6 GB. A connection may owe MAX_OWED_RESPONSES
 * responses; a request past them closes it, unhandled.
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
  it('is closed once it would owe more than its bound, the requests past it never handled; other connections go on', async () => {
    const { port, handled, release } = await holdingServer();
    const answered = await pipeline(port, 100_000);
    expect(answered).toBe('');
    expect(handled()).toBe(MAX_OWED_RESPONSES);
    release();
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
});

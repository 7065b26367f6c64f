import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, MAX_OWED_RESPONSES } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/lib/logger.js';

/*
 * One connection pipelining requests whose answers take a while (the console's first read opens the Document store):
 * Node read and dispatched all of them, 100,000 in one write held 2.6 GB. The listener reads a connection no further
 * while it owes MAX_OWED_RESPONSES responses, and on once half of them are sent.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const REQUESTS = 2_000;
// About 2 kB each, so one read of the socket (64 kB) holds a few dozen: what is read before the pause is bounded.
const PADDING = 'x'.repeat(2_000);

describe('a connection pipelining requests that are slow to answer', () => {
  it('is read no further while it owes its bound of responses, and every request is still answered, in order', async () => {
    let owed = 0;
    let mostOwed = 0;
    let open = false;
    const waiting: (() => void)[] = [];
    // Answers wait until the listener has stopped reading the connection (or, were it never to, until all arrived).
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      owed += 1;
      mostOwed = Math.max(mostOwed, owed);
      const answer = (): void => {
        owed -= 1;
        res.end(req.url);
      };
      if (!open && (req.socket.isPaused() || owed === REQUESTS)) {
        open = true;
        for (const release of waiting.splice(0)) release();
      }
      if (open) answer();
      else waiting.push(answer);
    };
    server = await listen(handler, '127.0.0.1', 0, { log: silentLogger() });
    const { port } = server.address() as { port: number };
    const requests = Array.from({ length: REQUESTS }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\nX-Pad: ${PADDING}\r\n\r\n`).join('');
    const answered = await new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        const count = text.split('HTTP/1.1 200 ').length - 1;
        if (count === REQUESTS) {
          expect(text.endsWith(`/${REQUESTS - 1}`)).toBe(true);
          socket.destroy();
          resolve(count);
        }
      });
      socket.on('error', reject);
      socket.write(requests);
    });
    expect(answered).toBe(REQUESTS);
    // The bound, and what one read of the socket already held when it was reached.
    expect(mostOwed).toBeGreaterThanOrEqual(MAX_OWED_RESPONSES);
    expect(mostOwed).toBeLessThan(MAX_OWED_RESPONSES + 100);
  });
});

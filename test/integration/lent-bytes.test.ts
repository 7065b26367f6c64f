import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LentBytes, sendRouteResponse } from '../../src/server/http/respond.js';
import { waitFor } from '../helpers/wait.js';

/** Far more than loopback's kernel buffers take for a reader that reads nothing (2–5 MB here). */
const LARGE = 16 * 1024 * 1024;

interface Loans {
  answered: number;
  givenBack: number;
  cut: number;
  /** 'cut' and 'given back', in the order they happened. */
  order: string[];
}

/** node:http answering every request with `body` lent through sendRouteResponse, as the events route does. */
async function lendingServer(body: Buffer, stalledMs: number): Promise<{ server: Server; port: number; loans: Loans }> {
  const loans: Loans = { answered: 0, givenBack: 0, cut: 0, order: [] };
  const server = createServer((req, res) => {
    req.resume();
    loans.answered += 1;
    const cut = (): void => {
      loans.cut += 1;
      loans.order.push('cut');
    };
    const giveBack = (): void => {
      loans.givenBack += 1;
      loans.order.push('given back');
    };
    sendRouteResponse(res, { status: 200, body: new LentBytes(body, stalledMs, cut, giveBack) });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, loans };
}

function requests(count: number): string {
  return 'GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n'.repeat(count);
}

/** Reads `count` answers of `bodyBytes` each (their heads are alike), then closes the connection; the last body. */
async function readAnswers(socket: Socket, count: number, bodyBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  socket.resume();
  const headBytes = (): number => Buffer.concat(chunks.slice(0, 1)).indexOf('\r\n\r\n') + 4;
  await waitFor(() => received > 0 && received >= count * (headBytes() + bodyBytes), { what: `${count} answers to arrive` });
  socket.destroy();
  const all = Buffer.concat(chunks);
  return all.subarray(all.length - bodyBytes);
}

describe('a lent body (LentBytes) is given back', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('once, as soon as the kernel took the whole answer', async () => {
    const body = Buffer.from('{"events":[]}');
    const lending = await lendingServer(body, 60_000);
    server = lending.server;
    const response = await fetch(`http://127.0.0.1:${lending.port}/`);
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
    expect(lending.loans).toMatchObject({ answered: 1, givenBack: 1, cut: 0 });
  });

  /** A server lending `body`, and a connection that has sent `count` requests and reads nothing until told to. */
  async function unreadAnswers(body: Buffer, stalledMs: number, count: number): Promise<{ loans: Loans; socket: Socket }> {
    const lending = await lendingServer(body, stalledMs);
    server = lending.server;
    const socket = connect(lending.port, '127.0.0.1');
    socket.pause();
    await once(socket, 'connect');
    socket.write(requests(count));
    await waitFor(() => lending.loans.answered === count, { what: `${count} requests to be answered` });
    return { loans: lending.loans, socket };
  }

  it('only when the last byte of an answer the kernel took part of has left', async () => {
    const body = Buffer.alloc(LARGE, 'x');
    const { loans, socket } = await unreadAnswers(body, 60_000, 1);
    // The reader reads nothing yet: the rest of the body is still the socket's, and its bytes must stay as they are.
    expect(loans.givenBack).toBe(0);
    expect((await readAnswers(socket, 1, LARGE)).equals(body)).toBe(true);
    await waitFor(() => loans.givenBack === 1, { what: 'the body to be given back' });
  });

  it('once the connection of a reader cut with part of it unsent is closed, not before', async () => {
    const { loans, socket } = await unreadAnswers(Buffer.alloc(LARGE, 'x'), 100, 1);
    await waitFor(() => loans.cut === 1, { what: 'the stalled reader to be cut' });
    await waitFor(() => loans.givenBack === 1, { what: 'the body to be given back' });
    socket.destroy();
    expect(loans.order).toEqual(['cut', 'given back']);
  });

  it('at once for an answer copied because its connection was still busy with an earlier one', async () => {
    const body = Buffer.alloc(LARGE, 'x');
    const { loans, socket } = await unreadAnswers(body, 60_000, 3);
    // The first is still being sent from the lent bytes; the other two waited their turn with copies of their own.
    expect(loans.givenBack).toBe(2);
    expect((await readAnswers(socket, 3, LARGE)).equals(body)).toBe(true);
    await waitFor(() => loans.givenBack === 3, { what: 'the first body to be given back' });
  });
});

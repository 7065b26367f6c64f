import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { encodeEvent, type EncodedEvent } from '../../src/server/feed/event-record.js';
import type { EventStore } from '../../src/server/feed/event-store.js';
import { eventsServerOptions } from '../../src/server/routes/events.js';
import { captureLog } from '../helpers/log-capture.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** Pages of 150 events of about 2 kB: some 300 kB each, so a few of them fill a connection's kernel buffers. */
function bigEvents(count: number): EncodedEvent[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const startTime = now - 3_600_000 + i;
    const result = encodeEvent({
      id: `${1000 + i}_${startTime}`,
      startTime,
      endTime: startTime + 1,
      eventType: 'CUSTOM_INFO',
      entityId: `HOST-${i % 7}`,
      eventStatus: 'CLOSED',
      title: `event ${i} ${'x'.repeat(2000)}`,
    });
    if (!result.ok) throw new Error(result.problems.join('; '));
    return result.event;
  });
}

/** A window that holds every event, the same for every request (the default one moves with the clock). */
const WINDOW = `from=${Date.now() - 86_400_000}&to=${Date.now() + 86_400_000}`;

/** `count` requests for the first page, sent back to back on one connection before any answer is read. */
function pipelined(server: TestServer, count: number): string {
  const path = `${new URL(server.url).pathname}/api/v1/events?${WINDOW}`;
  return `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Api-Token ${server.token}\r\n\r\n`.repeat(count);
}

/** Reads the connection to its end (or its reset), returning every byte that arrived. */
async function readToEnd(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  socket.resume();
  await once(socket, 'close');
  return Buffer.concat(chunks);
}

/** The bodies of consecutive HTTP/1.1 answers with a Content-Length each. */
function bodiesOf(bytes: Buffer): Buffer[] {
  const bodies: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    const length = Number(/content-length: (\d+)/i.exec(bytes.subarray(at, headEnd).toString('latin1'))?.[1]);
    bodies.push(bytes.subarray(headEnd + 4, headEnd + 4 + length));
    at = headEnd + 4 + length;
  }
  return bodies;
}

describe('events pages to readers that stall', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(stalledReaderMs: number): Promise<{ server: TestServer; lines: Array<Record<string, unknown>>; page: Buffer }> {
    const { log, lines } = captureLog();
    const started = await startTestServer({ ...eventsServerOptions({ log, stalledReaderMs }), events: false, scopes: ['DataExport'], log });
    server = started;
    const store = started.server.environments.get(DEFAULT_ENVIRONMENT)?.events as EventStore;
    await store.put(bigEvents(300));
    const first = await api(`${started.url}/api/v1/events?${WINDOW}`, { token: started.token });
    expect(first.status).toBe(200);
    return { server: started, lines, page: Buffer.from(first.text) };
  }

  it('cuts a reader that takes none of its page for the stalled-reader time, and says so', async () => {
    const { server: running, lines, page } = await serve(200);
    expect(page.length).toBeGreaterThan(250_000);
    const socket = connect(running.server.port, '127.0.0.1');
    // Never read until the cut: the answers fill the kernel's buffers, then wait in the server.
    socket.pause();
    await once(socket, 'connect');
    const asked = 40;
    socket.write(pipelined(running, asked));
    const cut = await waitFor(() => lines.find((line) => line['msg'] === 'cut a reader that took none of an events page'), {
      what: 'the stalled reader to be cut',
      timeoutMs: 20_000,
    });
    expect(cut).toMatchObject({ level: 40, env: DEFAULT_ENVIRONMENT, stalledMs: 200 });
    const received = await readToEnd(socket);
    // Cut: far fewer bytes than the forty answers would have been.
    expect(received.length).toBeLessThan(asked * page.length);
  });

  it('sends every pipelined page whole to a reader that keeps reading', async () => {
    const { server: running, page } = await serve(60_000);
    const socket = connect(running.server.port, '127.0.0.1');
    await once(socket, 'connect');
    const asked = 12;
    socket.end(pipelined(running, asked));
    const bodies = bodiesOf(await readToEnd(socket));
    expect(bodies).toHaveLength(asked);
    for (const body of bodies) expect(body.equals(page)).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How the server keeps answering when its file-descriptor limit is low (`ulimit -n 128`): every connection is a
 * descriptor, and once accept(2) fails with EMFILE libuv drops waiting connections without a word. So:
 *  - the listen backlog is kept small, so the connections accepted in one burst fit in what is left, and the rest
 *    wait in the kernel (their handshake is retried) instead of being accepted and dropped;
 *  - connections past the budget get `503` with `Retry-After` and are closed, so they are answered and freed at once.
 */
export interface DescriptorBudget {
  /** For listen(): how many finished handshakes the kernel queues for accept. */
  readonly backlog: number;
  /** Open connections served normally; one more is answered 503. */
  readonly connections: number;
}

/** Node's own default backlog, kept whenever the limit is high enough not to matter. */
const DEFAULT_BACKLOG = 511;
/** Descriptors the process needs besides connections: stdio, the event loop, store and event files, fsyncs. */
const RESERVED = 40;

/** The budget for a soft limit of `limit` descriptors; undefined (no limit known) keeps Node's defaults. */
export function descriptorBudget(limit: number | undefined = softDescriptorLimit()): DescriptorBudget {
  if (limit === undefined) return { backlog: DEFAULT_BACKLOG, connections: Number.POSITIVE_INFINITY };
  const spare = Math.max(8, limit - RESERVED);
  const backlog = Math.min(DEFAULT_BACKLOG, Math.max(4, Math.floor(spare / 4)));
  return { backlog, connections: Math.max(2, spare - backlog) };
}

/** The soft `RLIMIT_NOFILE` from /proc (Linux); undefined where it cannot be read or is unlimited. */
export function softDescriptorLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  const value = soft === undefined ? Number.NaN : Number(soft);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Counts open connections; one past the budget is answered `503` with `Retry-After` right away, before its request is
 * read, and closed once the client has read it (its request is read and dropped meanwhile, so closing never resets
 * the answer away). An accept(2) that still fails is an `error` on the server: without a listener it would end the
 * process, so it goes to `onAcceptError`. Returns whether a socket was refused, for the request listener to skip it.
 */
export function limitConnections(server: Server, budget: DescriptorBudget, onAcceptError: (error: Error) => void): (socket: Socket) => boolean {
  let open = 0;
  const refused = new WeakSet<Socket>();
  const onClose = (): void => {
    open -= 1;
  };
  server.prependListener('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', onClose);
    if (open <= budget.connections) return;
    refused.add(socket);
    socket.end(TOO_MANY_CONNECTIONS, () => socket.destroy());
  });
  server.on('error', onAcceptError);
  return (socket) => refused.has(socket);
}

const ENVELOPE = JSON.stringify({ error: { code: 503, message: 'The server is at its limit of open connections (file descriptors); retry after 1 s.' } });
const TOO_MANY_CONNECTIONS = Buffer.from(
  `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(ENVELOPE)}\r\n\r\n${ENVELOPE}`,
);

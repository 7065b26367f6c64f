import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A target that is not ours to trust, answering as a test's handler says: endless or trickling bodies, bodies no
 * real service sends. It records how each answer ended, so a test can see the client drop a connection.
 */
export interface HostileRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  /** Settles when the answer is over: `whole` when all of it was written, false when the client left first. */
  readonly ended: Promise<{ whole: boolean }>;
}

export interface HostileServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: HostileRequest[];
  close(): Promise<void>;
}

export async function startHostileServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<HostileServer> {
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const ended = new Promise<{ whole: boolean }>((resolve) => res.once('close', () => resolve({ whole: res.writableFinished })));
    requests.push({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://hostile.invalid').pathname, ended });
    handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PAD = Buffer.alloc(64 * 1024, 'a');

/**
 * A chunked 200 with `head`, then `padBytes` of `a`s as fast as the client takes them, then `tail`: JSON with a long
 * string when head and tail frame one.
 */
export function answerPadded(res: ServerResponse, { head, padBytes, tail }: { head: string; padBytes: number; tail: string }): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(head);
  let left = padBytes;
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const piece = left >= PAD.length ? PAD : PAD.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end(tail);
  };
  pump();
}

/**
 * A 200 whose body is one space every `everyMs` for `forMs`, then `text`: each pause far below any wait between
 * bytes a client allows, the whole far above the time limit a test sets. Stops when the client leaves.
 */
export function answerTrickling(res: ServerResponse, { text, everyMs = 20, forMs = 10_000 }: { text: string; everyMs?: number; forMs?: number }): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const started = performance.now();
  const timer = setInterval(() => {
    if (performance.now() - started < forMs) res.write(' ');
    else {
      clearInterval(timer);
      res.end(text);
    }
  }, everyMs);
  res.once('close', () => clearInterval(timer));
}

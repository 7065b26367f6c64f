import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { writeFileDurable } from '../../src/lib/durable-file.js';

export interface ServedBaseline {
  url: string;
  close(): Promise<void>;
  /** Resolves once everything the server acknowledged is in its final files (absent: it writes them before answering). */
  settled?(): Promise<void>;
}

export async function listen(server: Server): Promise<ServedBaseline> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * The GET baseline: node:http answering the exact bytes dashcd served for each path, from memory — the ceiling
 * for any server on this runtime and machine (no auth, no routing, no store).
 * `bytesFile` is a JSON object mapping request paths to response bodies.
 */
export async function serveBytesFromMemory(bytesFile: string): Promise<ServedBaseline> {
  const entries = JSON.parse(await readFile(bytesFile, 'utf8')) as Record<string, string>;
  const bodies = new Map(Object.entries(entries).map(([path, body]) => [path, Buffer.from(body)]));
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  return listen(server);
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The PUT baseline: node:http writing each body durably (the project's temp → fsync → rename → fsync(dir)
 * helper) under the path's last segment, then 204 — no parsing, no validation, no versioning.
 */
export function serveDurablePuts(dir: string): Promise<ServedBaseline> {
  return servePuts((name, body) => writeFileDurable(join(dir, `${name}.json`), body));
}

/**
 * The PUT ceiling: node:http reading each body in full and answering 204, keeping nothing. No PUT server on this
 * runtime can answer faster on this machine with the load generator beside it, durable or not.
 */
export function serveDiscardedPuts(): Promise<ServedBaseline> {
  return servePuts(() => Promise.resolve());
}

function servePuts(keep: (name: string, body: Buffer) => Promise<void>): Promise<ServedBaseline> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const name = (req.url ?? '').split('/').pop() ?? 'x';
    if (req.method !== 'PUT' || !/^[0-9a-f-]{36}$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    await keep(name, body);
    res.writeHead(204).end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  return listen(server);
}

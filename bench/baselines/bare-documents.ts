import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { writeFileDurable } from '../../src/lib/durable-file.js';
import { listen, readBody, type ServedBaseline } from './bare-http.js';

/**
 * The document create baseline: node:http reading each upload whole and writing it durably (the project's temp →
 * fsync → rename → fsync(dir) helper) under a new UUID, then 201 with a small JSON body — the one durable file per
 * document dashcd writes too, without parsing the multipart body, checking it, or journalling the metadata.
 */
export function serveDurableCreates(dir: string): Promise<ServedBaseline> {
  const server = createServer((req, res) => {
    const create = async (): Promise<void> => {
      const body = await readBody(req);
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const id = randomUUID();
      await writeFileDurable(join(dir, id), body);
      const answer = JSON.stringify({ id, version: 1 });
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    };
    create().catch(() => res.writeHead(500).end());
  });
  return listen(server);
}

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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

/**
 * The document GET baseline: node:http answering, for each path, the exact bytes dashcd answered, read from a file
 * per request as dashcd reads each document's content file — no auth, no routing, no metadata, no multipart framing.
 * `bytesFile` maps request paths to response bodies; the files are written beside it before the server listens.
 */
export async function serveBytesFromFiles(bytesFile: string): Promise<ServedBaseline> {
  const entries = Object.entries(JSON.parse(await readFile(bytesFile, 'utf8')) as Record<string, string>);
  const dir = `${bytesFile}.d`;
  await mkdir(dir, { recursive: true });
  const files = new Map<string, string>();
  for (const [index, [path, body]] of entries.entries()) {
    const file = join(dir, String(index));
    await writeFile(file, body);
    files.set(path, file);
  }
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': 'multipart/form-data', 'content-length': body.length }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return listen(server);
}

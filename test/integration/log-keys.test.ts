import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { createLogger } from '../../src/lib/logger.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { api } from '../helpers/server.js';

/** The names of a JSON object text's own members, in order, repeats kept (JSON.parse keeps only the last). */
function topLevelNames(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 1 && /^\s*:/.test(text.slice(i + 1, i + 4))) names.push(JSON.parse(text.slice(start, i + 1)) as string);
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return names;
}

const lines: string[] = [];
let server: DocumentServer;
beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  server = await startDocumentServer({ events: true, log: createLogger({ level: 'debug', destination }) });
});
afterAll(async () => server?.close());

describe('log lines', () => {
  it('name each field once, however deep the component that logs them (the document store wrote "component" twice)', async () => {
    const documents = createDocumentsClient({ platformUrl: server.baseUrl, credential: { kind: 'platform-token', token: await server.platformToken() } });
    await documents.create({ name: 'Logged', type: 'dashboard', id: 'logged', content: { bytes: Buffer.from('{}'), contentType: 'application/json' } });
    await documents.close();
    expect((await api(`${server.baseUrl}/api/config/v1/dashboards`, { token: server.token })).status).toBe(200);
    const opened = lines.filter((line) => line.includes('document store opened'));
    expect(opened).toHaveLength(1);
    expect(topLevelNames(opened[0] ?? '')).toContain('component');
    for (const line of lines) {
      const names = topLevelNames(line);
      expect(names, line).toEqual([...new Set(names)]);
    }
  });
});

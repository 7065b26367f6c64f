import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { createLogger } from '../../src/lib/logger.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { topLevelNames } from '../helpers/json-names.js';
import { api } from '../helpers/server.js';

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

import { describe, expect, it } from 'vitest';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { platformUrlOf } from '../../src/lib/platform-url.js';
import { silentLogger } from '../../src/lib/logger.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import { startApiServer } from '../../src/server/api-server.js';
import { startEmbeddedServer } from '../../src/server/create-server.js';
import { api, minimalDashboard } from '../helpers/server.js';
import { tempDirPerTest } from '../helpers/scratch.js';

const json = (text: string) => ({ bytes: text, contentType: 'application/json' });

/** The embedded target's session credentials: the classic token and a platform token for the Document service. */
describe('embedded session credentials', () => {
  let dataDir: string;
  tempDirPerTest('dashcd-session-credentials-', (created) => (dataDir = created));

  it('startEmbeddedServer hands out a platform token per environment whose documents a later run may still change', async () => {
    const first = await startEmbeddedServer({ dataDir, log: silentLogger() });
    const staging = await first.session(EnvironmentId.parse('staging'));
    const docs = (url: string, token: string) => createDocumentsClient({ platformUrl: platformUrlOf(url) ?? url, credential: { kind: 'platform-token', token }, retry: { maxAttempts: 1 } });
    const local = docs(first.url, first.platformToken);
    const stage = docs(staging.url, staging.platformToken);
    try {
      // Private by default: only its owner may change it later.
      const created = await local.create({ name: 'Ops', type: 'dashboard', id: 'ops', content: json('{"a":1}') });
      expect(created.version).toBe(1);
      expect((await stage.create({ name: 'Stage', type: 'notebook', id: 'stage', content: json('{}') })).id).toBe('stage');
      // Each environment's token is its own: staging's token is unknown to local's Document service.
      await expect(docs(first.url, staging.platformToken).metadata('ops')).rejects.toMatchObject({ status: 401 });
      // The classic token got the same scopes as before, and the unified list's InstallerDownload.
      expect((await api(`${staging.url}/api/config/v1/dashboards`, { method: 'POST', token: staging.token, body: minimalDashboard() })).status).toBe(201);
    } finally {
      await local.close();
      await stage.close();
      await first.close();
    }

    const second = await startEmbeddedServer({ dataDir, log: silentLogger() });
    const again = docs(second.url, second.platformToken);
    try {
      expect(second.platformToken).not.toBe(first.platformToken);
      const updated = await again.update('ops', 1, { name: 'Ops v2', isPrivate: false });
      expect(updated).toMatchObject({ version: 2, name: 'Ops v2', isPrivate: false });
      await again.delete('ops', 2);
      // Tokens live in memory only: the first run's token died with its server.
      await expect(docs(second.url, first.platformToken).list()).rejects.toMatchObject({ status: 401 });
    } finally {
      await again.close();
      await second.close();
    }
  });

  it("startApiServer's session carries a platform token with every document scope, owned like the embedded target's", async () => {
    const server = await startApiServer({ dataDir, host: '127.0.0.1', port: 0, log: silentLogger(), simulateEvents: false });
    const embeddedMade = { name: 'Shared', type: 'dashboard', id: 'shared', content: json('{"b":2}') };
    try {
      const { envUrl, token, platformToken } = await server.session(EnvironmentId.parse('dev'));
      const client = createDocumentsClient({ platformUrl: envUrl, credential: { kind: 'platform-token', token: platformToken }, retry: { maxAttempts: 1 } });
      try {
        const made = await client.create(embeddedMade);
        await client.delete(made.id, made.version);
        expect((await api(`${envUrl}/api/config/v1/dashboards`, { token })).status).toBe(200);
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
    // The same store under the embedded target: the API server's session and the embedded one are one owner.
    const embedded = await startEmbeddedServer({ dataDir, log: silentLogger() });
    const dev = await embedded.session(EnvironmentId.parse('dev'));
    const client = createDocumentsClient({ platformUrl: dev.url, credential: { kind: 'platform-token', token: dev.platformToken }, retry: { maxAttempts: 1 } });
    try {
      // Restoring and purging are the owner's: a session under another subject could not.
      await client.trash.restore('shared');
      expect((await client.metadata('shared')).name).toBe('Shared');
    } finally {
      await client.close();
      await embedded.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createApiClient, withDocuments } from '../../src/client/api-client.js';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { silentLogger } from '../../src/lib/logger.js';
import { planDashboards } from '../../src/reconcile/plan-dashboards.js';
import { documentsProjectPerTest } from '../helpers/documents-project.js';

/*
 * A file naming a document another user keeps private: the service shows it to its owner alone. Its 403 stopped every
 * plan of the folder (exit 4) and every pass of a daemon, whose other files were then never applied.
 */

const doc = (id: string, name: string): string => `document:\n  kind: dashboard\n  name: ${name}\n  id: ${id}\nversion: 21\ntiles: {}\nlayouts: {}\n`;
const scope = documentsProjectPerTest({ 'dashboards/theirs.yaml': doc('alice-private', 'Theirs'), 'dashboards/mine.yaml': doc('mine', 'Mine') });

async function privateOfAlice(): Promise<void> {
  const { server } = scope();
  const alice = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: await server.platformToken({ subject: 'alice' }) } });
  try {
    await alice.create({ id: 'alice-private', name: 'Alice', type: 'dashboard', isPrivate: true, content: { bytes: '{}', contentType: 'application/json' } });
  } finally {
    await alice.close();
  }
}

const REFUSED = 'dashboards/theirs.yaml  document.id: Document alice-private is private to its owner. This token can neither read nor change it: give the file another document.id';

describe("a file naming another user's private document", () => {
  it('is that file’s problem: plan and apply say so and exit 3, writing nothing', async () => {
    await privateOfAlice();
    const { run, documents } = scope();
    const plan = await run('plan');
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stdout).toContain(REFUSED);
    const apply = await run('apply');
    expect(apply.code).toBe(3);
    await expect(documents.metadata('mine')).rejects.toMatchObject({ status: 404 });
  });

  it('is skipped by a tolerant pass (the daemon’s), the others planned', async () => {
    await privateOfAlice();
    const { server, project } = scope();
    const documents = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: await server.platformToken() } });
    const api = withDocuments(createApiClient({ baseUrl: server.url, token: server.token }), documents);
    try {
      const planned = await planDashboards({ dir: 'dashboards', cwd: project.root, api, targetLabel: 'test', log: silentLogger(), concurrency: 4, workers: 0 }, { tolerateInvalid: true });
      if (planned.kind !== 'planned') throw new Error(`not planned: ${JSON.stringify(planned.diagnostics)}`);
      expect(planned.plan.changes.map((c) => [c.action, c.id])).toEqual([['create', 'mine']]);
      expect(planned.diagnostics.map((d) => `${d.file}  ${d.path}: ${d.message}`)).toEqual([REFUSED]);
    } finally {
      await api.close();
    }
  });
});

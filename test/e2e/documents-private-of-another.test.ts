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

const REFUSED = 'dashboards/theirs.yaml:4:7  document.id: Document alice-private is private to its owner. This token can neither read nor change it: give the file another document.id';

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
      expect(planned.diagnostics.map((d) => `${d.file}:${d.line}:${d.col}  ${d.path}: ${d.message}`)).toEqual([REFUSED]);
    } finally {
      await api.close();
    }
  });

  it('one another user shares to read only is the file’s problem at plan (apply met its 403 after a green plan)', async () => {
    const { server, run, project } = scope();
    const alice = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: await server.platformToken({ subject: 'alice' }) } });
    try {
      await alice.create({ id: 'alice-shared', name: 'Shared', type: 'dashboard', isPrivate: false, content: { bytes: '{"version":21,"tiles":{},"layouts":{}}', contentType: 'application/json' } });
    } finally {
      await alice.close();
    }
    await project.remove('dashboards/theirs.yaml');
    await project.write('dashboards/shared.yaml', doc('alice-shared', 'Shared, renamed'));
    const plan = await run('plan');
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    expect(plan.stdout).toContain('dashboards/shared.yaml:4:7  document.id: document alice-shared belongs to alice, who shares it with this identity to read only (access: read): this token can read it but not change it. Give the file another document.id, or have the owner share it with write access');
    const apply = await run('apply');
    expect(apply.code).toBe(3);
  });

  it('a new document with a UUID id is the file’s problem at plan (the service refused it at apply, after a green plan); an existing one’s UUID is fine', async () => {
    const { run, documents, project } = scope();
    const made = await documents.create({ name: 'Made in the app', type: 'dashboard', isPrivate: false, content: { bytes: '{}', contentType: 'application/json' } });
    await project.remove('dashboards/theirs.yaml');
    await project.write('dashboards/app.yaml', doc(made.id, 'Made in the app'));
    await project.write('dashboards/uuid.yaml', doc('6a1d2c3e-0000-4000-8000-000000000001', 'Uuid'));
    const plan = await run('plan');
    expect(plan.code, plan.stderr).toBe(3);
    expect(plan.stdout).toContain("dashboards/uuid.yaml:4:7  document.id: no document has this id, and the service makes UUID ids itself: a new document cannot have one. Leave document.id out (one is derived from the file's path) or write letters, digits and dashes");
    await project.remove('dashboards/uuid.yaml');
    const fine = await run('plan', '--output', 'json');
    expect(fine.code, fine.stderr).toBe(0);
    expect((JSON.parse(fine.stdout) as { changes: { action: string; id: string }[] }).changes.map((c) => `${c.action} ${c.id}`).sort()).toEqual([`adopt ${made.id}`, 'create mine']);
  });

  it('a UUID id its trash holds is no problem of the file: the plan says to restore it', async () => {
    const { run, documents, project } = scope();
    const made = await documents.create({ name: 'Trashed in the app', type: 'dashboard', isPrivate: false, content: { bytes: '{}', contentType: 'application/json' } });
    await documents.delete(made.id, made.version);
    await project.remove('dashboards/theirs.yaml');
    await project.write('dashboards/back.yaml', doc(made.id, 'Back'));
    const plan = await run('plan');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`dashcd trash restore ${made.id}`);
  });

  it("an id apart from another file's only by letter case is refused by the embedded server, in its words, not as a guess about the trash", async () => {
    const { run, project } = scope();
    await project.remove('dashboards/theirs.yaml');
    await project.write('dashboards/upper.yaml', doc('Case-ID', 'Upper'));
    await project.write('dashboards/lower.yaml', doc('case-id', 'Lower'));
    expect((await run('validate')).code).toBe(0);
    const applied = await run('apply');
    expect(applied.code).toBe(5);
    expect(applied.stdout + applied.stderr).toContain('its id is refused (409): A document whose id differs from');
    expect(applied.stdout + applied.stderr).not.toContain('most likely one in the trash');
  });
});

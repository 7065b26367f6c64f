import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';

/*
 * `pull --adopt` of a document another user owns (docs/documents-api.md's curl example): the Document service lets
 * only the owner change it, so the refusal's advice names that, not a token scope no token could add.
 */

let server: DocumentServer;
let project: Project;
let alice: DocumentsClient;
let dashcd: (...argv: string[]) => Promise<CliResult>;

beforeEach(async () => {
  server = await startDocumentServer();
  project = await createProject({});
  alice = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: await server.platformToken({ subject: 'alice' }) }, retry: { maxAttempts: 1 } });
  const env = { DT_ENV_URL: server.url, DT_API_TOKEN: server.token, DT_PLATFORM_URL: server.url, DT_PLATFORM_TOKEN: await server.platformToken({ subject: 'dashcd-ci' }) };
  dashcd = (...argv) => runDashcd(argv, { cwd: project.root, env });
});
afterEach(async () => {
  await alice?.close();
  await project?.cleanup();
  await server?.close();
});

const content = { bytes: JSON.stringify({ version: 21, tiles: {}, layouts: {} }), contentType: 'application/json' };

describe("a document someone else owns", () => {
  it('pull --adopt is refused with the owner named and advice about ownership, not scopes; the document is unchanged', async () => {
    await alice.create({ id: 'ops-overview', name: 'Ops overview', type: 'dashboard', isPrivate: false, content });
    const pulled = await dashcd('pull', 'ops-overview');
    expect(pulled.code, pulled.stderr).toBe(0);
    const adopted = await dashcd('pull', '--adopt', 'ops-overview');
    expect(adopted.code).toBe(4);
    expect(adopted.stderr).toContain('Only the owner of document ops-overview (alice) may change or delete it.');
    expect(adopted.stderr).toContain("no token scope changes that: use the owner's credentials, or have the document owned by the identity dashcd runs as");
    expect(adopted.stderr).not.toContain('scope this call needs');
    expect(await readFile(join(project.root, 'dashboards/ops-overview.yaml'), 'utf8')).toContain('id: ops-overview');
    expect((await alice.metadata('ops-overview')).version).toBe(1);
  });

  it('plan and apply refuse to adopt it as the file’s problem, naming the owner (exit 3, nothing written; it was a 403 at apply after a green plan)', async () => {
    await alice.create({ id: 'ops-overview', name: 'Ops overview', type: 'dashboard', isPrivate: false, content });
    // Another made outside dashcd, by dashcd's own identity: adopting it is allowed once the refused file is gone.
    const own = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: await server.platformToken({ subject: 'dashcd-ci' }) }, retry: { maxAttempts: 1 } });
    await own.create({ id: 'team-notes', name: 'Team notes', type: 'dashboard', isPrivate: false, content }).finally(() => own.close());
    expect((await dashcd('pull', 'ops-overview')).code).toBe(0);
    expect((await dashcd('pull', 'team-notes')).code).toBe(0);
    const refusal = 'document.id: document ops-overview belongs to alice, who shares it with this identity to read only (access: read): this token can read it but not change it';
    const plan = await dashcd('plan');
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    expect(plan.stdout).toContain(`dashboards/ops-overview.yaml:3:7  ${refusal}`);
    const applied = await dashcd('apply', '--concurrency', '1');
    expect(applied.code, applied.stderr).toBe(3);
    expect(applied.stdout).toContain(refusal);
    expect((await alice.metadata('ops-overview')).version).toBe(1);
    expect((await alice.metadata('team-notes')).description).toBeUndefined();
    await project.remove('dashboards/ops-overview.yaml');
    const rest = await dashcd('apply');
    expect(rest.code, rest.stdout + rest.stderr).toBe(0);
    expect(rest.stdout).toContain('! adopted  team-notes  dashboards/team-notes.yaml');
  });

  it("a private one is refused on read with advice to have it made public, not a scope", async () => {
    await alice.create({ id: 'alice-private', name: 'Mine', type: 'dashboard', content });
    const pulled = await dashcd('pull', 'alice-private');
    expect(pulled.code).toBe(4);
    expect(pulled.stderr).toContain("Document alice-private is private to its owner. — no token scope changes that: have the owner make it public, or use the owner's credentials");
  });
});

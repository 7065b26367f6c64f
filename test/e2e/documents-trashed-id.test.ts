import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';

/*
 * A pruned document's file put back (README's walkthrough): the id stays held by the document in the trash, so a
 * create is refused (409) on every apply. The real CLI against the embedded server says so and how to proceed,
 * instead of calling it a change made since the plan.
 */

const API = `dashboardMetadata:
  name: API latency
  owner: team@example.com
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: "## API"
`;

const CHECKOUT = `document:
  kind: dashboard
  name: Checkout
version: 21
tiles:
  "0": { type: markdown, content: "## Checkout" }
layouts:
  "0": { x: 0, y: 0, w: 24, h: 2 }
`;

const CHECKOUT_FILE = 'dashboards/team/checkout.yaml';
const RACE_ADVICE = 'review them with dashcd plan';

let server: DocumentServer;
let project: Project;
// A server each: the file's id derives from its path, so every test's document has the same id.
beforeEach(async () => {
  server = await startDocumentServer();
  project = await createProject({ 'dashboards/team/api.yaml': API, [CHECKOUT_FILE]: CHECKOUT });
});
afterEach(async () => {
  await project?.cleanup();
  await server?.close();
});

const cli = (platformToken: string) => (...argv: string[]): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token, DT_PLATFORM_URL: server.url, DT_PLATFORM_TOKEN: platformToken } });

/** A document made and deleted (to its owner's trash) by the identity of `platformToken`, as one would in the app. */
async function trashedBy(platformToken: string, id: string, name: string): Promise<void> {
  const owner = createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: platformToken }, retry: { maxAttempts: 1 } });
  try {
    const made = await owner.create({ id, name, type: 'dashboard', isPrivate: false, content: { bytes: '{}', contentType: 'application/json' } });
    await owner.delete(made.id, made.version);
  } finally {
    await owner.close();
  }
}

/** Apply, prune the document away, put its file back: the state the new user met. Returns the document's id. */
async function pruneAndPutBack(dashcd: ReturnType<typeof cli>): Promise<string> {
  const applied = await dashcd('apply');
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const id = /\+ created {2}(\S+) {2}dashboards\/team\/checkout\.yaml/.exec(applied.stdout)?.[1] ?? '';
  await project.remove(CHECKOUT_FILE);
  const pruned = await dashcd('apply', '--prune');
  expect(pruned.stdout).toContain(`- moved to the trash  ${id}  Checkout`);
  await project.write(CHECKOUT_FILE, CHECKOUT);
  return id;
}

describe('a create whose id a trashed document holds', () => {
  it('says the trash holds the id and how to restore it, on every apply; restoring it settles the file', async () => {
    const dashcd = cli(await server.platformToken({ subject: 'held-ci' }));
    const id = await pruneAndPutBack(dashcd);
    // The plan says it before apply meets it, in every form.
    const planned = await dashcd('plan');
    expect(planned.stdout).toMatch(new RegExp(`\\+ create {2}Checkout {2}\\(${CHECKOUT_FILE}, platform dashboard\\) — its id is held in the trash by Checkout \\(deleted \\S+ by held-ci\\): apply is refused until dashcd trash restore ${id}, or give the file another document\\.id`));
    const json = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as { changes: { id: string; heldInTrash: { name: string; deletedBy: string } | null }[] };
    expect(json.changes.find((c) => c.id === id)?.heldInTrash).toMatchObject({ name: 'Checkout', deletedBy: 'held-ci' });
    expect(json.changes.filter((c) => c.id !== id).map((c) => c.heldInTrash)).toEqual([null]);
    expect((await dashcd('plan', '--output', 'html')).stdout).toContain(`its id is held in the trash by Checkout: apply is refused until dashcd trash restore ${id}`);
    expect((await dashcd('plan', '--output', 'markdown')).stdout).toContain(`, id held in the trash: <code>dashcd trash restore ${id}</code> first`);
    for (let run = 0; run < 2; run++) {
      const applied = await dashcd('apply');
      expect(applied.code).toBe(5);
      expect(applied.stdout).toContain(
        `✗ create failed  ${id}  ${CHECKOUT_FILE}: its id is held by a document in the trash (Checkout, deleted `,
      );
      expect(applied.stdout).toMatch(/ by held-ci\), so the service refuses a new one \(409\): /);
      expect(applied.stdout).toContain(`dashcd trash restore ${id} brings it back and the next apply updates it to this file; or give the file another document.id`);
      expect(applied.stdout).not.toContain('changed on the target since it was planned');
      expect(applied.stderr).not.toContain(RACE_ADVICE);
    }

    const restored = await dashcd('trash', 'restore', id);
    expect(restored.code, restored.stderr).toBe(0);
    const after = await dashcd('apply');
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).toContain('0 failed');
    expect((await dashcd('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('without a look into the trash (no trash scope) still says the id is held out of sight, not that it changed', async () => {
    const dashcd = cli(await server.platformToken({ subject: 'blind-ci', scopes: ['document:documents:read', 'document:documents:write', 'document:documents:delete'] }));
    const id = await pruneAndPutBack(dashcd);
    const planned = await dashcd('plan');
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`+ create  Checkout  (${CHECKOUT_FILE}, platform dashboard)\n`);
    const applied = await dashcd('apply');
    expect(applied.code).toBe(5);
    expect(applied.stdout).toContain(`✗ create failed  ${id}  ${CHECKOUT_FILE}: its id is taken by a document dashcd cannot read (409), most likely one in the trash of whoever deleted it`);
    expect(applied.stdout).toContain('restore it from that trash, or give the file another document.id');
    expect(applied.stderr).not.toContain(RACE_ADVICE);
  });

  it('writes a trashed name from the service without its control characters (it could retitle or redraw a terminal)', async () => {
    const platformToken = await server.platformToken({ subject: 'held-ci' });
    const dashcd = cli(platformToken);
    await trashedBy(platformToken, 'held-by-me', 'Evil\u001b]0;PWNED\u0007\u001b[2K\u009b1A');
    await project.write(CHECKOUT_FILE, CHECKOUT.replace('name: Checkout', 'name: Checkout\n  id: held-by-me'));
    const applied = await dashcd('apply');
    expect(applied.code).toBe(5);
    expect(applied.stdout).toContain('its id is held by a document in the trash (Evil ]0;PWNED  [2K 1A, deleted ');
    expect(applied.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it("names the held id when another user's trash holds it (deleted in the app by its owner)", async () => {
    const dashcd = cli(await server.platformToken({ subject: 'other-ci' }));
    await trashedBy(await server.platformToken({ subject: 'alice' }), 'held-by-alice', 'Alice’s');
    await project.write(CHECKOUT_FILE, CHECKOUT.replace('name: Checkout', 'name: Checkout\n  id: held-by-alice'));
    const applied = await dashcd('apply');
    expect(applied.code).toBe(5);
    expect(applied.stdout).toContain(`✗ create failed  held-by-alice  ${CHECKOUT_FILE}: its id is taken by a document dashcd cannot read (409)`);
    expect(applied.stderr).not.toContain(RACE_ADVICE);
  });
});

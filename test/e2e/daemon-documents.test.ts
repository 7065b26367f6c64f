import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../helpers/corpus.js';
import { runDashcd } from '../helpers/cli.js';
import { dashboardYaml, metricValue, TOKEN_LIKE, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, waitForLive } from '../helpers/git-scope.js';

/** Platform dashboards and notebooks in `dashcd daemon`: created, self-healed, updated from the file, pruned, per kind. */

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

/** The subject the daemon's embedded sessions write as: an app edit "by the same user" acts as it. */
const SESSION_SUBJECT = 'dashcd-session';

/** A corpus download as a dashcd file: `document:` first, the app's content after it. */
function documentFile(kind: 'dashboard' | 'notebook', name: string): string {
  const [dir, file] = kind === 'dashboard'
    ? [CORPUS_DOCUMENT_DASHBOARDS_DIR, 'Dynatrace__dynatrace-configuration-as-code-samples__azure_devops_deployments.json']
    : [CORPUS_NOTEBOOKS_DIR, 'Dynatrace__obslab-log-problem-detection__redis-troubleshooting.json'];
  const content = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
  return `${JSON.stringify({ document: { kind, name }, ...content }, null, 2)}\n`;
}

const FILES = {
  'dashboards/checkout.yaml': dashboardYaml('Checkout'),
  'dashboards/deployments.json': documentFile('dashboard', 'Deployments'),
  'dashboards/triage.json': documentFile('notebook', 'Redis triage'),
};

/** The app: the daemon's embedded Document service, as the session's own user. */
async function app(d: DaemonChild, cwd: string): Promise<DocumentsClient> {
  const scopes = 'document:documents:read,document:documents:write,document:trash.documents:read,document:trash.documents:restore';
  const made = await runDashcd(['token', 'create', '--data', '.dashcd', '--scopes', scopes, '--subject', SESSION_SUBJECT], { cwd });
  expect(made.code, made.stderr).toBe(0);
  const token = made.stdout.trim().split('\n').pop() ?? '';
  return createDocumentsClient({ platformUrl: `${d.url}/e/local`, credential: { kind: 'platform-token', token }, retry: { maxAttempts: 1 } });
}

async function html(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.text();
}

describe('dashcd daemon with platform dashboards and notebooks', { timeout: 120_000 }, () => {
  it('creates them, reverts an edit made in the app, applies a file edit, prunes to the trash, and counts each kind', async () => {
    const project = await scope.createProject(FILES);
    const d = await scope.startDaemon(['--resync', '1s', '--poll', '1h', '--prune'], { cwd: project.root });
    const created = await waitFor(async () => {
      const status = await d.status();
      return Object.values(status.files).filter((f) => f.result === 'created').length === 3 ? status : undefined;
    }, { what: 'the three files created' });
    expect(created.lastReconcile?.ok, created.lastReconcile?.error).toBe(true);
    expect(Object.fromEntries(Object.entries(created.files).map(([file, s]) => [file, s.kind]))).toEqual({
      'dashboards/checkout.yaml': 'dashboard',
      'dashboards/deployments.json': 'document',
      'dashboards/triage.json': 'document',
    });
    expect(created.kinds).toEqual({ dashboard: { files: 1, drifted: 0, orphans: 0 }, document: { files: 2, drifted: 0, orphans: 0 } });
    const created_ = await d.metrics();
    expect(metricValue(created_, 'dashcd_writes_total', { action: 'create', kind: 'document' })).toBe(2);
    expect(metricValue(created_, 'dashcd_writes_total', { action: 'create', kind: 'dashboard' })).toBe(1);
    expect(metricValue(created_, 'dashcd_files', { kind: 'document' })).toBe(2);
    expect(metricValue(created_, 'dashcd_files', { kind: 'dashboard' })).toBe(1);

    const documents = await app(d, project.root);
    try {
      const notebookId = created.files['dashboards/triage.json']?.id ?? '';
      const dashboardId = created.files['dashboards/deployments.json']?.id ?? '';
      const sectionsOf = async (id: string): Promise<{ id: string; markdown?: string }[]> => (JSON.parse((await documents.content(id)).bytes.toString('utf8')) as { sections: { id: string; markdown?: string }[] }).sections;
      const fileSections = (JSON.parse(FILES['dashboards/triage.json']) as { sections: unknown[] }).sections;
      expect(await sectionsOf(notebookId)).toEqual(fileSections);

      // Someone edits the notebook in the app (same user, the version it read): the next resync writes the file back.
      const { version } = await documents.metadata(notebookId);
      const edited = (await sectionsOf(notebookId)).map((s, i) => (i === 0 ? { ...s, markdown: 'Edited in the app' } : s));
      const content = JSON.parse((await documents.content(notebookId)).bytes.toString('utf8')) as Record<string, unknown>;
      await documents.replaceContent(notebookId, version, { bytes: JSON.stringify({ ...content, sections: edited }), contentType: 'application/json' });
      await waitFor(async () => JSON.stringify(await sectionsOf(notebookId)) === JSON.stringify(fileSections), { what: 'the app edit reverted' });
      const healed = await waitFor(async () => {
        const status = await d.status();
        return status.files['dashboards/triage.json']?.result === 'drift-reverted' || metricValue(await d.metrics(), 'dashcd_drift_found_total', { kind: 'document' }) >= 1 ? status : undefined;
      }, { what: 'the drift counted' });
      expect(healed.driftCount).toBeGreaterThanOrEqual(1);
      const samples = await d.metrics();
      expect(metricValue(samples, 'dashcd_drift_found_total', { kind: 'document' })).toBeGreaterThanOrEqual(1);
      expect(metricValue(samples, 'dashcd_drift_found_total', { kind: 'dashboard' })).toBe(0);
      expect(metricValue(samples, 'dashcd_writes_total', { action: 'update', kind: 'document' })).toBeGreaterThanOrEqual(1);
      const warning = d.stdout().split('\n').find((line) => line.includes('drift found; reverting'));
      expect(JSON.parse(warning ?? '{}')).toMatchObject({ file: 'dashboards/triage.json', patch: [{ op: 'replace', path: '/sections/0/markdown', value: (fileSections[0] as { markdown: string }).markdown, live: 'Edited in the app' }] });

      // A file edit is applied through the watcher, with the version the plan read.
      const path = join(project.root, 'dashboards/deployments.json');
      await writeFile(path, (await readFile(path, 'utf8')).replace('"name": "Deployments"', '"name": "Deployments v2"'));
      await waitFor(async () => (await documents.metadata(dashboardId)).name === 'Deployments v2', { what: 'the file edit applied' });

      // Its file removed, with --prune the notebook goes to the trash (restorable), not gone for good.
      await rm(join(project.root, 'dashboards/triage.json'));
      await waitFor(async () => (await documents.trash.list()).some((t) => t.id === notebookId), { what: 'the notebook in the trash' });
      expect(metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'delete', kind: 'document' })).toBe(1);
      // The log says where it went, as apply's line does (it said "orphan dashboard deleted").
      expect(d.stdout()).toMatch(new RegExp(`"id":"${notebookId}".*"msg":"orphan document moved to the trash"`));
      expect(d.stdout()).not.toContain('orphan dashboard deleted');
      const after = await waitFor(async () => {
        const status = await d.status();
        return status.files['dashboards/triage.json'] === undefined ? status : undefined;
      }, { what: 'the removed file forgotten' });
      expect(after.kinds).toEqual({ dashboard: { files: 1, drifted: 0, orphans: 0 }, document: { files: 1, drifted: 0, orphans: 0 } });

      // Its file put back while the notebook is in the trash: a file problem saying to restore it, not a create the
      // service refuses at every pass (it was tried, and failed, at every resync).
      await writeFile(join(project.root, 'dashboards/triage.json'), FILES['dashboards/triage.json'] ?? '');
      const held = await waitFor(async () => {
        const status = await d.status();
        return status.invalid.some((i) => i.file === 'dashboards/triage.json') ? status : undefined;
      }, { what: 'the put-back file listed as invalid' });
      expect(held.invalid.find((i) => i.file === 'dashboards/triage.json')?.errors.join('\n')).toContain(`its id is held by a document in the trash (Redis triage, deleted `);
      expect(held.invalid.find((i) => i.file === 'dashboards/triage.json')?.errors.join('\n')).toContain(`dashcd trash restore ${notebookId} brings it back`);
      // Two resyncs later: still no create attempted.
      const passes = held.lastReconcile?.at ?? '';
      await waitFor(async () => ((await d.status()).lastReconcile?.at ?? '') > passes, { what: 'another pass' });
      expect(metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'create', kind: 'document' })).toBe(2);
      expect(d.stdout()).not.toMatch(/create failed|"action":"create".*"status":"failed"/);
      // Restored, the next pass brings it up to the file.
      await documents.trash.restore(notebookId);
      await waitFor(async () => ((await d.status()).invalid.length === 0 ? true : undefined), { what: 'the file valid again' });
    } finally {
      await documents.close();
    }
    expect(d.stdout()).not.toMatch(TOKEN_LIKE);
  });

  it('the console lists documents beside classic dashboards with their kind, and draws each one', async () => {
    const project = await scope.createProject(FILES);
    const d = await scope.startDaemon(['--resync', '1h', '--poll', '1h'], { cwd: project.root });
    const list = await html(`${d.url}/ui/e/local`);
    const rows = [...list.matchAll(/<tr class="dashboard" data-status="(\w+)" data-key="([^"]+)" data-kind="([^"]*)">[\s\S]*?<a href="[^"]*">([^<]*)<\/a>/g)].map((m) => ({ status: m[1], key: m[2] ?? '', kind: m[3], name: m[4] }));
    expect(rows.map(({ name, kind, status }) => [name, kind, status]).sort()).toEqual([
      ['Checkout v1', 'dashboard', 'synced'],
      ['Deployments', 'platform dashboard', 'synced'],
      ['Redis triage', 'notebook', 'synced'],
    ]);
    const notebook = await html(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent(rows.find((r) => r.kind === 'notebook')?.key ?? '')}`);
    expect(notebook).toContain('<span class="kind">notebook</span>');
    expect(notebook).toMatch(/class="picture layout"><svg[\s\S]*notebook · 7 sections/);
    const dashboard = await html(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent(rows.find((r) => r.kind === 'platform dashboard')?.key ?? '')}`);
    expect(dashboard).toMatch(/class="picture layout"><svg[\s\S]*platform dashboard · 27 tiles/);
  });

  it('following a repository (--repo), document files are reconciled like any other', async () => {
    const { remote, url, cwd } = await fixture();
    const commit = await remote.commit(FILES, 'a classic dashboard, a platform dashboard and a notebook');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s', '--resync', '1h', '--poll', '1h'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, commit);
    const status = await d.status();
    expect(status.lastReconcile?.ok, status.lastReconcile?.error).toBe(true);
    expect(Object.values(status.files).map((f) => [f.kind, f.result]).sort()).toEqual([['dashboard', 'created'], ['document', 'created'], ['document', 'created']]);
    const documents = await app(d, cwd);
    try {
      const names = (await documents.list({ filter: "type == 'dashboard' or type == 'notebook'" })).map((m) => [m.type, m.name]).sort();
      expect(names).toEqual([['dashboard', 'Deployments'], ['notebook', 'Redis triage']]);
    } finally {
      await documents.close();
    }
  });
});

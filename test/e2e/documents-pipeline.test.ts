import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { createApiClient, withDocuments, type ApiClient } from '../../src/client/api-client.js';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { kindOf } from '../../src/kinds/kinds.js';
import { silentLogger } from '../../src/lib/logger.js';
import { compareRules } from '../../src/reconcile/compare-rules.js';
import { replanWrite } from '../../src/reconcile/plan-against-live.js';
import { planDashboards } from '../../src/reconcile/plan-dashboards.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../helpers/corpus.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';

/** Platform dashboards and notebooks through validate → apply → plan, pruning to the trash, adoption and a 409. */

const SUBJECT = 'dashcd-ci';

interface PlanJson {
  changes: { action: string; id: string; kind?: string; file?: string }[];
  summary: Record<string, number>;
}

let server: DocumentServer;
let platformToken: string;
beforeAll(async () => {
  server = await startDocumentServer();
  platformToken = await server.platformToken({ subject: SUBJECT });
});
afterAll(async () => {
  await server?.close();
});

const env = (): Record<string, string> => ({ DT_ENV_URL: server.url, DT_API_TOKEN: server.token, DT_PLATFORM_URL: server.url, DT_PLATFORM_TOKEN: platformToken });
const inProject = (project: Project) => (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root, env: env() });
const documents = (): DocumentsClient => createDocumentsClient({ platformUrl: server.url, credential: { kind: 'platform-token', token: platformToken }, retry: { maxAttempts: 1 } });

/** A corpus document as a dashcd file: the app's download with `document:` added first. */
function corpusFile(dir: string, file: string, kind: 'dashboard' | 'notebook'): string {
  const content = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ document: { kind, name: basename(file, '.json').slice(-60) }, ...content }, null, 2);
}

function planOf(result: CliResult): PlanJson {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PlanJson;
}

describe('every corpus document, as a file', () => {
  const dashboards = readdirSync(CORPUS_DOCUMENT_DASHBOARDS_DIR).filter((f) => f.endsWith('.json'));
  const notebooks = readdirSync(CORPUS_NOTEBOOKS_DIR).filter((f) => f.endsWith('.json'));
  let project: Project;
  // A server of its own: these documents carry dashcd's mark, so another project on the same target would see them as its orphans.
  let own: DocumentServer;
  const ownEnv = async (): Promise<Record<string, string>> => ({ DT_ENV_URL: own.url, DT_API_TOKEN: own.token, DT_PLATFORM_URL: own.url, DT_PLATFORM_TOKEN: await own.platformToken({ subject: SUBJECT }) });
  beforeAll(async () => {
    own = await startDocumentServer();
    project = await createProject({
      ...Object.fromEntries(dashboards.map((f) => [`dashboards/platform/${f}`, corpusFile(CORPUS_DOCUMENT_DASHBOARDS_DIR, f, 'dashboard')])),
      ...Object.fromEntries(notebooks.map((f) => [`dashboards/notebooks/${f}`, corpusFile(CORPUS_NOTEBOOKS_DIR, f, 'notebook')])),
    });
  });
  afterAll(async () => {
    await project?.cleanup();
    await own?.close();
  });

  it('validates, applies, then plans with no change, and pulls back files that plan with no change', async () => {
    const variables = await ownEnv();
    const dashcd = (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root, env: variables });
    const validated = await dashcd('validate');
    expect(validated.code, validated.stdout).toBe(0);
    expect(validated.stderr).toContain(`${dashboards.length} platform dashboards and ${notebooks.length} notebooks valid in ${dashboards.length + notebooks.length} files`);
    const applied = await dashcd('apply');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${dashboards.length + notebooks.length} created`);
    // Pulled back: every file is the live document already (pull writes none of them), and the plan has nothing to
    // do: the files are the ones apply wrote from, so this is also the plan right after apply.
    const pulled = await dashcd('pull', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout.match(/^= up to date/gm)).toHaveLength(dashboards.length + notebooks.length);
    const plan = planOf(await dashcd('plan', '--output', 'json'));
    expect(plan.summary).toMatchObject({ create: 0, adopt: 0, update: 0, delete: 0, unchanged: dashboards.length + notebooks.length });
    expect(new Set(plan.changes.map((c) => c.kind))).toEqual(new Set(['document']));
  });
});

const CHECKOUT = stringify({
  document: { kind: 'dashboard', name: 'Checkout', description: 'Errors of checkout' },
  version: 21,
  variables: [],
  tiles: { '0': { type: 'markdown', content: '## Checkout' }, '1': { type: 'data', title: 'Errors', query: 'fetch logs | filter loglevel == "ERROR" | summarize count()', visualization: 'singleValue' } },
  layouts: { '0': { x: 0, y: 0, w: 24, h: 2 }, '1': { x: 0, y: 2, w: 8, h: 4 } },
});
const TRIAGE = stringify({ document: { kind: 'notebook', name: 'Triage', isPrivate: true }, version: '7', sections: [{ id: 's1', type: 'markdown', markdown: '# Triage' }] });

describe('a platform dashboard and a notebook beside a classic dashboard', () => {
  let project: Project;
  beforeAll(async () => {
    project = await createProject({
      'dashboards/checkout.yaml': CHECKOUT,
      'dashboards/triage.yaml': TRIAGE,
      'dashboards/hosts.yaml': 'dashboardMetadata: { name: Hosts, owner: ops }\ntiles: []\n',
    });
  });
  afterAll(async () => {
    await project?.cleanup();
  });

  it('creates each as its kind, marks documents owned, moves a pruned one to the trash, and restores it', async () => {
    const dashcd = inProject(project);
    const planned = await dashcd('plan');
    expect(planned.stdout).toContain('+ create  Checkout  (dashboards/checkout.yaml, platform dashboard)');
    expect(planned.stdout).toContain('+ create  Triage  (dashboards/triage.yaml, notebook)');
    expect(planned.stdout).toContain('+ create  Hosts  (dashboards/hosts.yaml)');
    expect((await dashcd('apply')).code).toBe(0);

    const listed = await documents().list({ addFields: ['description'] });
    const checkout = listed.find((d) => d.id.startsWith('checkout-'));
    expect(checkout).toMatchObject({ type: 'dashboard', isPrivate: false, description: 'Errors of checkout [managed-by:dashcd]' });
    expect(listed.find((d) => d.id.startsWith('triage-'))).toMatchObject({ type: 'notebook', isPrivate: true, description: '[managed-by:dashcd]' });

    // A moved tile is one change to its layout; whitespace and key order are none.
    await project.write('dashboards/checkout.yaml', CHECKOUT.replace('y: 2', 'y: 3'));
    const moved = planOf(await dashcd('plan', '--output', 'json'));
    expect(moved.summary.update).toBe(1);
    expect(JSON.stringify(moved.changes.find((c) => c.action === 'update'))).toContain('"path":"/layouts/1/y"');
    await dashcd('apply');

    await project.remove('dashboards/triage.yaml');
    const kept = await dashcd('plan');
    expect(kept.stdout).toMatch(/- orphan {2}Triage {2}\(document, id triage-[0-9a-f-]+\) — kept/);
    const pruned = await dashcd('apply', '--prune');
    expect(pruned.code, pruned.stdout).toBe(0);
    expect(pruned.stdout).toMatch(/- delete {2}Triage {2}\(document, id (triage-[0-9a-f-]+)\) — to the trash \(dashcd trash restore \1\)/);
    expect(pruned.stdout).toMatch(/- moved to the trash {2}triage-/);
    const id = /moved to the trash {2}(\S+)/.exec(pruned.stdout)?.[1] ?? '';
    await expect(documents().get(id)).rejects.toMatchObject({ status: 404 });

    const trash = await dashcd('trash', 'list');
    expect(trash.stdout).toContain(`${id}  notebook   Triage`);
    const restored = await dashcd('trash', 'restore', id, 'not-there');
    expect(restored.code).toBe(1);
    expect(restored.stdout).toContain(`↺ restored  ${id}`);
    expect(restored.stderr).toContain('not-there is not in the trash');
    // What to do next, which only --help said: the restored document is an orphan until its file is back.
    expect(restored.stderr).toContain(`note: ${id} has no valid file in the dashboards folder: it is an orphan until its file is back (git revert, or 'dashcd pull <id>')`);
    expect((await documents().get(id)).metadata.name).toBe('Triage');
    // Its file back, trashed and restored again: it is simply back, and the note (said of every restore) is not given.
    await project.write('dashboards/triage.yaml', TRIAGE);
    expect(planOf(await dashcd('plan', '--output', 'json')).summary.orphan).toBe(0);
    await documents().delete(id, (await documents().metadata(id)).version);
    const back = await dashcd('trash', 'restore', id);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toBe('');
    // With --dir naming a folder below the root: ids still derive from the root (it named this one an orphan).
    await documents().delete(id, (await documents().metadata(id)).version);
    await project.write('dashboards/notes/readme.md', 'not a dashboard');
    const fromSubfolder = await dashcd('trash', 'restore', '--dir', 'dashboards/notes', id);
    expect(fromSubfolder.code, fromSubfolder.stderr).toBe(0);
    expect(fromSubfolder.stderr).toBe('');
  });

  it('adopts a document made elsewhere only through an adopt in the plan', async () => {
    const dashcd = inProject(project);
    const made = await documents().create({ id: 'made-in-the-app', name: 'Made in the app', type: 'notebook', content: { bytes: JSON.stringify({ version: '7', sections: [] }), contentType: 'application/json' } });
    expect(made.description).toBeUndefined();
    await project.write('dashboards/app.yaml', stringify({ document: { kind: 'notebook', name: 'Made in the app', id: 'made-in-the-app' }, version: '7', sections: [] }));
    const plan = await dashcd('plan');
    expect(plan.stdout).toContain('! adopt   Made in the app  (dashboards/app.yaml, notebook) — takes over a notebook made outside dashcd');
    expect(plan.stdout).toContain('document.description');
    expect((await dashcd('apply')).stdout).toContain('! adopted  made-in-the-app');
    expect((await documents().metadata('made-in-the-app')).description).toBe('[managed-by:dashcd]');
    expect(planOf(await dashcd('plan', '--output', 'json')).summary.adopt).toBe(0);
  });

  it('never overwrites an edit made between plan and apply: the write is refused (409) and re-planned', async () => {
    const api: ApiClient = withDocuments(createApiClient({ baseUrl: server.url, token: server.token }), documents());
    try {
      await project.write('dashboards/checkout.yaml', CHECKOUT.replace('Errors of checkout', 'Checkout errors'));
      const ctx = { dir: 'dashboards', cwd: project.root, api, targetLabel: 'test', log: silentLogger(), concurrency: 2 };
      const planned = await planDashboards(ctx);
      if (planned.kind !== 'planned') throw new Error('expected a plan');
      const change = planned.plan.changes.find((c) => c.action === 'update');
      expect(change).toMatchObject({ kind: 'document', expectedVersion: expect.any(Number) });

      // Someone edits the dashboard in the app after the plan was made.
      const id = change?.id ?? '';
      const live = await documents().get(id);
      await documents().update(id, live.metadata.version, { name: 'Checkout (edited in the app)' });

      const rules = compareRules(planned.config);
      const result = await applyPlan(planned.plan, { api, kinds: kindOf, replan: (c) => replanWrite(c, { api, rules }), log: silentLogger(), concurrency: 2 });
      if (result.kind !== 'applied') throw new Error('expected writes');
      expect(result.outcomes).toEqual([
        expect.objectContaining({ id, status: 'failed', error: expect.stringMatching(/^changed on the target since it was planned \(409\): not overwritten; planned again: update \(\d changes\)$/) }),
      ]);
      const outcome = result.outcomes[0];
      expect(outcome?.status === 'failed' && outcome.action !== 'delete' && outcome.replanned).toMatchObject({ action: 'update', patch: expect.arrayContaining([{ op: 'replace', path: '/document/name', value: 'Checkout' }]) });
      expect((await documents().metadata(id)).name).toBe('Checkout (edited in the app)');
      const run = await inProject(project)('apply');
      expect(run.code).toBe(0);
      expect((await documents().metadata(id)).description).toBe('Checkout errors [managed-by:dashcd]');
    } finally {
      await api.close();
    }
  });
});

describe('a document file whose id the target holds as something no file can be', () => {
  it('fails as the target’s answer (exit 4), naming the document and what to do, and writes nothing', async () => {
    await documents().create({ id: 'not-json', name: 'Odd', type: 'notebook', content: { bytes: 'not json', contentType: 'text/plain' } });
    await documents().create({ id: 'a-launchpad', name: 'Pad', type: 'launchpad', content: { bytes: '{}', contentType: 'application/json' } });
    for (const [id, why] of [['not-json', "document not-json's content is not JSON"], ['a-launchpad', 'document a-launchpad is a "launchpad", not a dashboard or notebook']] as const) {
      const project = await createProject({ 'dashboards/odd.yaml': stringify({ document: { kind: 'notebook', name: 'Odd', id }, version: '7', sections: [] }) });
      try {
        const result = await inProject(project)('apply');
        expect(result.code, result.stderr).toBe(4);
        expect(result.stderr).toContain(why);
        expect(result.stderr).toContain('(give the file another document.id, or change the document in its app)');
        expect(result.stderr).not.toContain('unexpected error');
        expect((await documents().metadata(id)).version).toBe(1);
      } finally {
        await project.cleanup();
      }
    }
  });
});

describe('a document file against a target without a platform', () => {
  it('fails as an unusable target (exit 4), saying what to set, and writes nothing', async () => {
    const project = await createProject({ 'dashboards/checkout.yaml': CHECKOUT });
    try {
      const result = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('has no platform configured for platform dashboards and notebooks: set DT_PLATFORM_TOKEN (or DT_CLIENT_ID and DT_CLIENT_SECRET)\n');
    } finally {
      await project.cleanup();
    }
  });

  it('with a platform token set but a target whose URL names no platform host, asks for DT_PLATFORM_URL', async () => {
    const project = await createProject({ 'dashboards/checkout.yaml': CHECKOUT });
    try {
      // A Managed environment's URL: no request goes anywhere before the missing platform is said.
      const managed = 'https://dynatrace.example.invalid/e/abc';
      const result = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: managed, DT_API_TOKEN: server.token, DT_PLATFORM_TOKEN: 'dt0s16.TEST' } });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain(
        `has no platform configured for platform dashboards and notebooks: DT_PLATFORM_TOKEN is set, but DT_PLATFORM_URL is not, and ${managed} does not name its platform host (only a SaaS URL such as https://abc123.live.dynatrace.com does): set DT_PLATFORM_URL to the environment's platform URL\n`,
      );
      // The embedded server's address with https: the scheme is the likelier slip, and fixing it finds the platform.
      const local = `https://127.0.0.1:${new URL(server.baseUrl).port}/e/local`;
      const tls = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: local, DT_API_TOKEN: server.token, DT_PLATFORM_TOKEN: 'dt0s16.TEST' } });
      expect(tls.code).toBe(4);
      expect(tls.stderr).toContain(`set DT_PLATFORM_URL to the environment's platform URL; dashcd's own server speaks http, not https: for it, write ${local.replace('https:', 'http:')} and its platform is the same address`);
    } finally {
      await project.cleanup();
    }
  });
});

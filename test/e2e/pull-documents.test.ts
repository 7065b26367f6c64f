import { statSync } from 'node:fs';
import { readdir, readFile, rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../src/config/project-config.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../helpers/corpus.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';

/*
 * `dashcd pull` and `dashcd pin` for platform dashboards and notebooks: the real CLI against the embedded server over
 * HTTP (classic API and Document service), documents made with the real client as the apps would make them.
 */

let server: DocumentServer;
let documents: DocumentsClient;
let project: Project;
let platformUrl: string;
let platformToken: string;
const proxies: FaultServer[] = [];

beforeEach(async () => {
  server = await startDocumentServer();
  platformToken = await server.platformToken({ subject: 'ci' });
  platformUrl = server.url;
  documents = createDocumentsClient({ platformUrl, credential: { kind: 'platform-token', token: platformToken } });
  project = await createProject({});
});
afterEach(async () => {
  await documents.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
  await server.close();
  await project.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token, DT_PLATFORM_URL: platformUrl, DT_PLATFORM_TOKEN: platformToken } });
const read = (file: string): Promise<string> => readFile(join(project.root, file), 'utf8');
const json = (value: unknown) => ({ bytes: JSON.stringify(value), contentType: 'application/json' });

interface PlanJson {
  summary: Record<string, number>;
  changes: { id: string; file?: string | null; action: string; kind?: string }[];
}
async function plan(): Promise<PlanJson> {
  const planned = await dashcd('plan', '--output', 'json');
  expect(planned.code, planned.stderr).toBe(0);
  return JSON.parse(planned.stdout) as PlanJson;
}

const DASHBOARD = { version: 21, variables: [], tiles: { '0': { type: 'markdown', content: '# Checkout' } }, layouts: { '0': { x: 0, y: 0, w: 24, h: 2 } } };
const NOTEBOOK = { version: '7', defaultTimeframe: { from: 'now()-2h', to: 'now()' }, sections: [{ id: 'a1', type: 'markdown', markdown: '# Triage' }] };

/**
 * Corpus documents under this size make the sample. The three 2 MB notebooks cost seconds each through every pull's
 * YAML and every plan, and show nothing about pull's own behaviour: they go through validate, apply, pull and plan
 * in documents-pipeline.test.ts, and their pull form is checked in test/unit/documents.
 */
const SAMPLE_MAX_BYTES = 1_000_000;

/**
 * Every sixth corpus document of each kind (under SAMPLE_MAX_BYTES), created as the app would (public; every third
 * with a description, one already marked). A sample: the whole corpus goes through validate, apply, pull and plan in
 * documents-pipeline.test.ts, and every corpus document's pull form is checked in test/unit/documents; here it is
 * pull's own behaviour.
 */
async function createCorpus(): Promise<number> {
  let count = 0;
  for (const [type, dir] of [['dashboard', CORPUS_DOCUMENT_DASHBOARDS_DIR], ['notebook', CORPUS_NOTEBOOKS_DIR]] as const) {
    const names = (await readdir(dir)).filter((n) => n.endsWith('.json') && statSync(join(dir, n)).size < SAMPLE_MAX_BYTES).sort();
    for (const name of names.filter((_, i) => i % 6 === 0)) {
      const bytes = await readFile(join(dir, name));
      const description = count === 0 ? `Already managed [${DEFAULT_OWNERSHIP_TAG}]` : count % 3 === 0 ? `From ${basename(name, '.json').slice(0, 60)}` : undefined;
      await documents.create({ name: `${type} ${basename(name, '.json')}`.slice(0, 128), type, isPrivate: false, ...(description ? { description } : {}), content: { bytes, contentType: 'application/json' } });
      count++;
    }
  }
  return count;
}

describe('dashcd pull --all with platform dashboards and notebooks', () => {
  it('writes corpus documents as files that plan with no change but the adopt (pulled documents carry no mark)', async () => {
    const count = await createCorpus();
    expect(count).toBe(13);
    const pulled = await dashcd('pull', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout.split('\n').filter((l) => l.startsWith('↓ pulled  '))).toHaveLength(count);
    expect(await readdir(join(project.root, 'dashboards'))).toHaveLength(count);

    const after = await plan();
    // The one document that already carried the mark is unchanged; every other is a takeover with the mark as its one change.
    expect(after.summary).toMatchObject({ create: 0, adopt: count - 1, update: 0, delete: 0, unchanged: 1 });
    expect(after.changes.every((c) => c.kind === 'document')).toBe(true);

    // Pulling again changes nothing: each file already means its document.
    const again = await dashcd('pull', '--all');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n').filter((l) => l.startsWith('= up to date  '))).toHaveLength(count);
  });

  it('with --adopt marks each pulled document, so the next plan shows every one unchanged', async () => {
    const count = await createCorpus();
    const pulled = await dashcd('pull', '--all', '--adopt');
    expect(pulled.code, pulled.stderr).toBe(0);
    // The one already marked is not adopted again.
    expect(pulled.stdout.split('\n').filter((l) => l.endsWith('(adopted: now owned by dashcd)'))).toHaveLength(count - 1);
    expect((await plan()).summary).toMatchObject({ create: 0, adopt: 0, update: 0, unchanged: count });
  });

  it('writes the pull form: document: first with the live id, the mark stripped from the description, the content as stored', async () => {
    await documents.create({ id: 'checkout-overview', name: 'Checkout – Überblick', type: 'dashboard', description: `Errors of checkout [${DEFAULT_OWNERSHIP_TAG}]`, isPrivate: false, content: json(DASHBOARD) });
    const made = await documents.create({ id: 'triage-notebook', name: 'Triage', type: 'notebook', isPrivate: true, content: json(NOTEBOOK) });
    const pulled = await dashcd('pull', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe('↓ pulled  checkout-overview  dashboards/checkout-uberblick.yaml\n↓ pulled  triage-notebook  dashboards/triage.yaml\n');
    const file = await read('dashboards/checkout-uberblick.yaml');
    expect(file.startsWith('document:\n  kind: dashboard\n  id: checkout-overview\n  name: Checkout – Überblick\n  description: Errors of checkout\nversion: 21\n')).toBe(true);
    expect(parseYaml(file)).toEqual({ document: { kind: 'dashboard', id: 'checkout-overview', name: 'Checkout – Überblick', description: 'Errors of checkout' }, ...DASHBOARD });
    expect(parseYaml(await read('dashboards/triage.yaml'))).toEqual({ document: { kind: 'notebook', id: made.id, name: 'Triage', isPrivate: true }, ...NOTEBOOK });
    expect((await plan()).summary).toMatchObject({ adopt: 1, unchanged: 1 });
  });

  it("leaves out the apps' ready-made documents (originAppId or originExtensionId set)", async () => {
    await documents.create({ id: 'own-board', name: 'Own board', type: 'dashboard', isPrivate: false, content: json(DASHBOARD) });
    await documents.create({ id: 'shipped-board', name: 'Kubernetes overview', type: 'dashboard', isPrivate: false, content: json(DASHBOARD) });
    await documents.create({ id: 'shipped-notebook', name: 'Extension notebook', type: 'notebook', isPrivate: false, content: json(NOTEBOOK) });
    // The embedded server makes only user documents: in front of it, the listing says what an app shipped, as the service does.
    const proxy = await startFaultServer({
      upstream: server.baseUrl,
      handle: async (request, forward) => {
        const answer = await forward();
        if (request.method !== 'GET' || !request.path.endsWith('/platform/document/v1/documents')) return answer;
        const page = JSON.parse(String(answer.body)) as { documents: Record<string, unknown>[] };
        for (const d of page.documents) {
          if (d.id === 'shipped-board') d.originAppId = 'dynatrace.kubernetes';
          if (d.id === 'shipped-notebook') d.originExtensionId = 'com.dynatrace.extension.sample';
        }
        return { ...answer, body: page };
      },
    });
    proxies.push(proxy);
    platformUrl = `${proxy.url}${new URL(server.url).pathname}`;
    const pulled = await dashcd('pull', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe('↓ pulled  own-board  dashboards/own-board.yaml\n');
    // Asked for by id, a ready-made document is pulled like any other.
    expect((await dashcd('pull', 'shipped-board')).stdout).toBe('↓ pulled  shipped-board  dashboards/kubernetes-overview.yaml\n');
  });
});

describe('dashcd pull <id> with platform documents', () => {
  it('takes document ids and UUIDs of documents, refreshes an existing file in place, and keeps local edits without --force', async () => {
    await documents.create({ id: 'checkout-overview', name: 'Checkout', type: 'dashboard', isPrivate: false, content: json(DASHBOARD) });
    const made = await documents.create({ name: 'Triage', type: 'notebook', isPrivate: false, content: json(NOTEBOOK) });
    await project.write(
      'dashboards/team/checkout.yaml',
      '# ours\ndocument:\n  kind: dashboard\n  id: checkout-overview\n  name: Checkout\nversion: 21\nvariables: []\ntiles: { "0": { type: markdown, content: "# Checkout" } }\nlayouts: { "0": { x: 0, y: 0, w: 24, h: 2 } }\n',
    );
    const pulled = await dashcd('pull', 'checkout-overview', made.id);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe(`= up to date  checkout-overview  dashboards/team/checkout.yaml\n↓ pulled  ${made.id}  dashboards/triage.yaml\n`);
    expect(await read('dashboards/team/checkout.yaml')).toContain('# ours');

    // Changed in the app: the file now differs, so it is kept without --force and replaced with it.
    const { version } = await documents.metadata('checkout-overview');
    await documents.update('checkout-overview', version, { name: 'Checkout (new)' });
    const kept = await dashcd('pull', 'checkout-overview');
    expect(kept.code).toBe(1);
    expect(kept.stderr).toBe("dashcd pull: dashboards/team/checkout.yaml differs from live dashboard checkout-overview (local edits?); not overwritten: 'dashcd plan' shows what differs; --force replaces it\n");
    const forced = await dashcd('pull', '--force', 'checkout-overview');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toBe('↓ pulled  checkout-overview  dashboards/team/checkout.yaml\n');
    expect(parseYaml(await read('dashboards/team/checkout.yaml'))).toEqual({ document: { kind: 'dashboard', id: 'checkout-overview', name: 'Checkout (new)' }, ...DASHBOARD });
    expect(await readdir(join(project.root, 'dashboards'))).toEqual(['team', 'triage.yaml']);
  });

  it('adopts a pulled document by id (--adopt), after which plan shows it unchanged', async () => {
    await documents.create({ id: 'checkout-overview', name: 'Checkout', type: 'dashboard', description: 'Errors', isPrivate: false, content: json(DASHBOARD) });
    const pulled = await dashcd('pull', '--adopt', 'checkout-overview');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe('↓ pulled  checkout-overview  dashboards/checkout.yaml  (adopted: now owned by dashcd)\n');
    expect((await documents.metadata('checkout-overview')).description).toBe(`Errors [${DEFAULT_OWNERSHIP_TAG}]`);
    expect(await read('dashboards/checkout.yaml')).not.toContain(DEFAULT_OWNERSHIP_TAG);
    expect((await plan()).summary).toMatchObject({ adopt: 0, unchanged: 1 });
  });

  it('says which ids were not found, and refuses a document no file can hold, one line each, exit 1', async () => {
    await documents.create({ id: 'home-launchpad', name: 'Home', type: 'launchpad', isPrivate: false, content: json({ blocks: [] }) });
    await documents.create({ id: 'own-settings', name: 'Own settings', type: 'dashboard', isPrivate: false, content: json({ ...DASHBOARD, dashcd: { x: 1 } }) });
    const missing = '3c9d1e2f-1111-4a2b-8c3d-4e5f6a7b8c9d';
    const pulled = await dashcd('pull', 'home-launchpad', missing, 'own-settings', 'no-such-document');
    expect(pulled.code).toBe(1);
    expect(pulled.stdout).toBe('');
    expect(pulled.stderr.split('\n')).toEqual([
      'dashcd pull: home-launchpad not pulled: document home-launchpad is a "launchpad", not a dashboard or notebook',
      `dashcd pull: ${missing} not found on ${server.url}; nothing written for it`,
      'dashcd pull: own-settings not pulled: its content has a top-level "dashcd" member, which a dashcd file would read as its own settings; rename that member in the app first',
      `dashcd pull: no-such-document not found on ${server.url}; nothing written for it`,
      '',
    ]);
  });
  it('refuses a document too large for a file dashcd would read back (it wrote 37 MiB that every plan then refused), past twice that before making its YAML', async () => {
    // Markdown tiles of 5 and 9 MiB: within the service's 50 MB, past the 4 MiB a file is read up to.
    const tile = (mib: number) => ({ ...DASHBOARD, tiles: { '0': { type: 'markdown', content: 'x'.repeat(mib * 1024 * 1024) } } });
    await documents.create({ id: 'too-big', name: 'Too big', type: 'dashboard', isPrivate: false, content: json(tile(5)) });
    await documents.create({ id: 'far-too-big', name: 'Far too big', type: 'dashboard', isPrivate: false, content: json(tile(9)) });
    const pulled = await dashcd('pull', 'too-big', 'far-too-big');
    expect(pulled.code).toBe(1);
    expect(pulled.stderr.split('\n')).toEqual([
      expect.stringMatching(/^dashcd pull: too-big not pulled: as YAML it is \d+ bytes; a file is read up to 4 MiB, so no file can hold it: keep it in the app$/),
      expect.stringMatching(/^dashcd pull: far-too-big not pulled: its content is \d+ bytes; a file is read up to 4 MiB, so no file can hold it: keep it in the app$/),
      '',
    ]);
    expect((await readdir(join(project.root, 'dashboards'))).filter((name) => name.includes('too-big'))).toEqual([]);
  });

  it("writes a document whose JSON is past 4 MiB for its escapes but whose file is within it (it was refused by the JSON's size)", async () => {
    const quoted = 'say "x" '.repeat(Math.floor((3.6 * 1024 * 1024) / 8));
    await documents.create({ id: 'quoted', name: 'Quoted', type: 'dashboard', isPrivate: false, content: json({ ...DASHBOARD, tiles: { '0': { type: 'markdown', content: quoted } } }) });
    expect(JSON.stringify(quoted).length).toBeGreaterThan(4 * 1024 * 1024);
    const pulled = await dashcd('pull', 'quoted');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect((await read('dashboards/quoted.yaml')).length).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('on a target without a platform, --all pulls classic dashboards only and a document id says what to set (exit 4)', async () => {
    await documents.create({ id: 'checkout-overview', name: 'Checkout', type: 'dashboard', isPrivate: false, content: json(DASHBOARD) });
    const classicOnly = (...argv: string[]) => runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    const all = await classicOnly('pull', '--all');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe('');
    const byId = await classicOnly('pull', 'checkout-overview');
    expect(byId.code).toBe(4);
    expect(byId.stderr).toContain('no platform configured for platform dashboards and notebooks: set DT_PLATFORM_TOKEN');
  });
});

describe('dashcd pin with document files', () => {
  it("writes each derived id into document.id of YAML and JSON files, keeping comments and layout, so a renamed file stays the same document", async () => {
    await project.write('dashboards/team/checkout.yaml', '# Checkout board\ndocument:\n  kind: dashboard # the Dashboards app\n  name: Checkout\nversion: 21\nvariables: []\ntiles:\n  "0": { type: markdown, content: "# Checkout" }\nlayouts:\n  "0": { x: 0, y: 0, w: 24, h: 2 }\n');
    await project.write('dashboards/triage.json', `{\n  "document": { "kind": "notebook", "name": "Triage" },\n  "version": "7",\n  "sections": []\n}\n`);
    const before = await plan();
    const idOf = (file: string) => before.changes.find((c) => c.file === file)?.id;
    const [yamlId, jsonId] = [idOf('dashboards/team/checkout.yaml'), idOf('dashboards/triage.json')];
    expect(yamlId).toMatch(/^team-checkout-[0-9a-f]{13}$/);
    expect((await dashcd('apply')).code).toBe(0);

    const pinned = await dashcd('pin');
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toBe(`pinned ${yamlId}  dashboards/team/checkout.yaml\npinned ${jsonId}  dashboards/triage.json\n`);
    expect(await read('dashboards/team/checkout.yaml')).toBe(
      `# Checkout board\ndocument:\n  id: ${yamlId}\n  kind: dashboard # the Dashboards app\n  name: Checkout\nversion: 21\nvariables: []\ntiles:\n  "0": { type: markdown, content: "# Checkout" }\nlayouts:\n  "0": { x: 0, y: 0, w: 24, h: 2 }\n`,
    );
    expect(JSON.parse(await read('dashboards/triage.json'))).toEqual({ document: { id: jsonId, kind: 'notebook', name: 'Triage' }, version: '7', sections: [] });
    expect((await dashcd('pin')).stdout).toBe('');

    await rename(join(project.root, 'dashboards/team/checkout.yaml'), join(project.root, 'dashboards/checkout-renamed.yaml'));
    const after = await plan();
    expect(after.changes.find((c) => c.file === 'dashboards/checkout-renamed.yaml')).toMatchObject({ id: yamlId, action: 'unchanged' });
    expect(after.summary).toMatchObject({ create: 0, unchanged: 2, orphan: 0 });
  });
});

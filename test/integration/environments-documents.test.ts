import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveDocumentId } from '../../src/desired/document-id.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startDocumentServer } from '../helpers/documents.js';
import { BOARD, CONFIG, TRIAGE } from '../helpers/document-templates.js';
import { api } from '../helpers/server.js';

/** A platform dashboard and a notebook in a project with two embedded environments: one file each, two renderings. */

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function setUp(): Promise<(...argv: string[]) => Promise<CliResult>> {
  project = await createProject({ 'dashcd.yaml': CONFIG, 'dashboards/board.yaml': BOARD, 'dashboards/triage.yaml': TRIAGE });
  const root = project.root;
  return (...argv) => runDashcd(argv, { cwd: root });
}

interface PlannedChange {
  action: string;
  kind?: string;
  id: string;
  name: string;
  file: string;
  patch: { op: string; path: string; value?: unknown }[] | null;
}

async function planOf(dashcd: (...argv: string[]) => Promise<CliResult>, env: string): Promise<PlannedChange[]> {
  const plan = await dashcd('plan', '--env', env, '--output', 'json');
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  const [only] = (JSON.parse(plan.stdout) as { environments: { name: string; changes: PlannedChange[]; diagnostics: unknown[] }[] }).environments;
  expect(only?.diagnostics).toEqual([]);
  return only?.changes ?? [];
}

/** The stored content of documents (`env/id`), read over HTTP from the store the commands wrote. */
async function liveContents(keys: readonly string[]): Promise<Record<string, Record<string, unknown>>> {
  const server = await startDocumentServer({ dataDir: join((project as Project).root, '.dashcd'), keepDataDir: true });
  try {
    const out: Record<string, Record<string, unknown>> = {};
    for (const key of keys) {
      const [env, id] = key.split('/') as [string, string];
      const token = await server.platformToken({ env: EnvironmentId.parse(env) });
      const read = await api(`${server.docsUrl(EnvironmentId.parse(env))}/documents/${id}/content`, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status, read.text).toBe(200);
      out[key] = JSON.parse(read.text) as Record<string, unknown>;
    }
    return out;
  } finally {
    await server.close();
  }
}

describe('documents in an environments project', () => {
  it('plans each environment its own platform dashboard and notebook: values, overrides, limits, ids and references', async () => {
    const dashcd = await setUp();
    const boardId = deriveDocumentId('board.yaml');
    expect((await planOf(dashcd, 'dev')).map((c) => [c.action, c.kind, c.id, c.name, c.file])).toEqual([
      ['create', 'document', boardId, 'Checkout dev', 'dashboards/board.yaml'],
      ['create', 'document', 'triage-notes', 'Triage', 'dashboards/triage.yaml'],
    ]);
    expect((await planOf(dashcd, 'prod')).map((c) => [c.action, c.kind, c.id, c.name, c.file])).toEqual([
      ['create', 'document', boardId, 'Checkout prod', 'dashboards/board.yaml'],
      ['create', 'document', 'triage-prod', 'Triage', 'dashboards/triage.yaml'],
    ]);

    const applied = await dashcd('apply', '--all-envs');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const live = await liveContents([`prod/${boardId}`, `dev/${boardId}`, 'prod/triage-prod', 'dev/triage-notes']);
    expect(live[`prod/${boardId}`]?.tiles).toEqual({
      intro: { type: 'markdown', content: '[Triage](/ui/apps/dynatrace.notebooks/notebook/triage-prod)' },
      errors: { type: 'data', query: 'fetch logs | filter service == "checkout-prod"', title: 'Errors (production)' },
    });
    expect(Object.keys(live[`prod/${boardId}`]?.layouts as object)).toEqual(['intro', 'errors']);
    expect(Object.keys(live[`dev/${boardId}`]?.tiles as object)).toEqual(['intro', 'errors', 'debug']);
    const sections = (key: string): unknown => (live[key]?.sections as { id: string; markdown?: string }[]).map((section) => [section.id, section.markdown]);
    expect(sections('prod/triage-prod')).toEqual([['intro', 'Triage of checkout-prod'], ['logs', undefined], ['budget', 'prod only']]);
    expect(sections('dev/triage-notes')).toEqual([['intro', 'Triage of checkout'], ['debug', 'debug only'], ['logs', undefined]]);
  });

  it('updates only the environment whose override changed', async () => {
    const dashcd = await setUp();
    expect((await dashcd('apply', '--all-envs')).code).toBe(0);
    await project?.write('dashboards/triage.yaml', TRIAGE.replace('markdown: prod only', 'markdown: production only'));
    expect((await planOf(dashcd, 'dev')).map((c) => c.action)).toEqual(['unchanged', 'unchanged']);
    const prod = await planOf(dashcd, 'prod');
    expect(prod.filter((c) => c.action !== 'unchanged').map((c) => [c.action, c.id, c.patch])).toEqual([
      ['update', 'triage-prod', [{ op: 'replace', path: '/sections/2/markdown', value: 'production only' }]],
    ]);
  });
});

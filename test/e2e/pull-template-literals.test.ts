import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import { SESSION_SUBJECT } from '../../src/server/create-server.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { api } from '../helpers/server.js';

/*
 * `dashcd pull --env` where the live text holds `${{` (a GitHub Actions snippet in a markdown tile): in a project
 * with environments every string of a file is a template, so pull writes the literal form `$${{` and the pulled
 * files validate, plan with no change and read as up to date. The live items are made over HTTP in the embedded
 * store's `dev` environment while its server runs, as `dashcd serve` would hold them; the commands go through it.
 */

const SNIPPET = 'Set `token: ${{ secrets.DT_TOKEN }}` in the workflow';
const DEV = EnvironmentId.parse('dev');

let project: Project;
let server: DocumentServer;
let documents: DocumentsClient;
let token: string;
let platformToken: string;

beforeEach(async () => {
  project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n' });
  await mkdir(join(project.root, 'dashboards'));
  server = await startDocumentServer({ dataDir: join(project.root, '.dashcd'), keepDataDir: true });
  await server.server.environments.ensure(DEV);
  token = server.tokenFor(['ReadConfig', 'WriteConfig'], DEV);
  // As the identity the commands' embedded session acts as: only a document's owner may adopt it.
  platformToken = await server.platformToken({ env: DEV, subject: SESSION_SUBJECT });
  documents = createDocumentsClient({ platformUrl: server.server.envUrl(DEV), credential: { kind: 'platform-token', token: platformToken } });
});
afterEach(async () => {
  await documents.close();
  await server.close();
  await project.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root });
const dashboardsUrl = (suffix = ''): string => `${server.server.envUrl(DEV)}/api/config/v1/dashboards${suffix}`;

/** A classic dashboard and a notebook, neither owned by dashcd, with the snippet in their names and text. */
async function createLive(): Promise<{ dashboardId: string; notebookId: string }> {
  const created = await api(dashboardsUrl(), {
    method: 'POST',
    token,
    body: {
      dashboardMetadata: { name: 'CI ${{ setup }}', owner: 'ops', tags: ['${{ tag }}'] },
      tiles: [{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: SNIPPET }],
    },
  });
  expect(created.status, created.text).toBe(201);
  const notebook = { version: '7', sections: [{ id: 'a1', type: 'markdown', markdown: `${SNIPPET}; $\${{ stays }} two dollars` }] };
  const made = await documents.create({ id: 'ci-runbook', name: 'Runbook', type: 'notebook', isPrivate: false, content: { bytes: JSON.stringify(notebook), contentType: 'application/json' } });
  return { dashboardId: (created.json as { id: string }).id, notebookId: made.id };
}

async function liveMarkdown(id: string): Promise<unknown> {
  const read = await api(dashboardsUrl(`/${id}`), { token });
  return (read.json as { tiles: { markdown: string }[] }).tiles[0]?.markdown;
}

async function pulledFiles(): Promise<Record<string, string>> {
  const names = (await readdir(join(project.root, 'dashboards'))).sort();
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readFile(join(project.root, 'dashboards', name), 'utf8')] as const)));
}

describe('dashcd pull --env: live text with ${{ in a project with environments', () => {
  it('writes each ${{ as $${{, so the files validate, plan with no change but the adopt, and pull again as up to date', async () => {
    await createLive();
    const pulled = await dashcd('pull', '--env', 'dev', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    const files = await pulledFiles();
    expect(Object.keys(files)).toEqual(['ci-setup.yaml', 'runbook.yaml']);
    expect(parseYaml(files['ci-setup.yaml'] as string)).toMatchObject({
      dashboardMetadata: { name: 'CI $${{ setup }}', tags: ['$${{ tag }}'] },
      tiles: [{ markdown: 'Set `token: $${{ secrets.DT_TOKEN }}` in the workflow' }],
    });
    // Two dollars before `${{` live are three in the file: the renderer drops only the one right before `${{`.
    expect(parseYaml(files['runbook.yaml'] as string)).toMatchObject({ sections: [{ markdown: 'Set `token: $${{ secrets.DT_TOKEN }}` in the workflow; $$${{ stays }} two dollars' }] });

    const validated = await dashcd('validate', '--env', 'dev');
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    const planned = await dashcd('plan', '--env', 'dev', '--output', 'json');
    expect(planned.code, planned.stderr).toBe(0);
    // Not owned yet: the ownership mark is each one's only change.
    expect((JSON.parse(planned.stdout) as { environments: { summary: Record<string, number> }[] }).environments[0]?.summary).toMatchObject({ create: 0, adopt: 2, update: 0, delete: 0 });

    const again = await dashcd('pull', '--env', 'dev', '--all');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n').filter((line) => line.startsWith('= up to date  '))).toHaveLength(2);
    expect(await pulledFiles()).toEqual(files);
  });

  it('with --adopt marks the live items with their text unchanged, so plan shows no change', async () => {
    const { dashboardId, notebookId } = await createLive();
    const pulled = await dashcd('pull', '--env', 'dev', '--all', '--adopt');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout.split('\n').filter((line) => line.endsWith('(adopted: now owned by dashcd)'))).toHaveLength(2);
    expect(await liveMarkdown(dashboardId)).toBe(SNIPPET);
    const notebook = JSON.parse(Buffer.from((await documents.get(notebookId)).content).toString('utf8')) as { sections: { markdown: string }[] };
    expect(notebook.sections[0]?.markdown).toBe(`${SNIPPET}; $\${{ stays }} two dollars`);
    const planned = await dashcd('plan', '--env', 'dev', '--detailed-exitcode');
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  });

  it('without environments writes ${{ as it is: the files are not templates there', async () => {
    await createLive();
    await project.remove('dashcd.yaml');
    const url = server.server.envUrl(DEV);
    const env = { DT_ENV_URL: url, DT_API_TOKEN: token, DT_PLATFORM_URL: url, DT_PLATFORM_TOKEN: platformToken };
    const pulled = await runDashcd(['pull', '--all'], { cwd: project.root, env });
    expect(pulled.code, pulled.stderr).toBe(0);
    const files = await pulledFiles();
    expect(parseYaml(files['ci-setup.yaml'] as string)).toMatchObject({ dashboardMetadata: { name: 'CI ${{ setup }}' }, tiles: [{ markdown: SNIPPET }] });
    expect(parseYaml(files['runbook.yaml'] as string)).toMatchObject({ sections: [{ markdown: `${SNIPPET}; $\${{ stays }} two dollars` }] });
    const planned = await runDashcd(['plan', '--output', 'json'], { cwd: project.root, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect((JSON.parse(planned.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 0, adopt: 2, update: 0, delete: 0 });
  });
});

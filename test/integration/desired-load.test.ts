import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dashboard } from '../../src/schema/dashboard.js';
import { parseDocument } from 'yaml';
import { deriveDashboardId, loadDesired } from '../../src/desired/load-desired.js';
import { formatDiagnostic, type Diagnostic } from '../../src/desired/diagnostic.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

/** A temp project: `files` are written under `dashboards/`; returns the project root (used as cwd). */
async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'dashcd-desired-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    const path = join(root, 'dashboards', name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
  await mkdir(join(root, 'dashboards'), { recursive: true });
  return root;
}

async function load(files: Record<string, string>): Promise<Awaited<ReturnType<typeof loadDesired>>> {
  return loadDesired({ dir: 'dashboards', cwd: await project(files) });
}

const where = (d: Diagnostic): string => `${d.file}:${d.line}:${d.col} ${d.path}`;

// The comment line is part of the fixture: diagnostics' line numbers below count it.
const VALID = `# CPU overview\n${markdownDashboard({ name: 'CPU', owner: 'ops', markdown: 'hello' })}`;

describe('loadDesired', () => {
  it('loads valid files in path order with derived or file ids, bodies without id and metadata', async () => {
    const withId = `id: 6F8E4F2A-1B2C-4D3E-8F90-A1B2C3D4E5F6\nmetadata:\n  clusterVersion: "1.2"\n${VALID}`;
    const result = await load({ 'b.yaml': withId, 'a/x.yml': VALID });
    expect(result.diagnostics).toEqual([]);
    expect(result.files).toBe(2);
    const [first, second] = result.dashboards;
    expect(first).toMatchObject({ file: 'dashboards/a/x.yml', idSource: 'derived', id: deriveDashboardId('a/x.yml'), name: 'CPU' });
    expect(second).toMatchObject({ file: 'dashboards/b.yaml', idSource: 'file', id: '6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6' });
    expect(Object.keys(second?.body ?? {})).toEqual(['dashboardMetadata', 'tiles']);
    expect(second?.contentHash).toBe(createHash('sha256').update(withId).digest('hex'));
  });

  it('holds each body as the JSON apply sends: a fresh copy on every read, NaN written as null, -0 as 0', async () => {
    const odd = `${VALID}extra:\n  nan: .nan\n  zero: -0\n`;
    const [dashboard] = (await load({ 'a.yaml': odd })).dashboards;
    if (dashboard === undefined) throw new Error('no dashboard loaded');
    expect(dashboard.bodyJson).toBe(JSON.stringify(dashboard.body));
    expect(dashboard.body).not.toBe(dashboard.body);
    (dashboard.body.tiles as unknown[]).length = 0;
    expect(dashboard.body.tiles).toHaveLength(1);
    const { extra } = dashboard.body as unknown as { extra: { nan: unknown; zero: number } };
    expect(extra.nan).toBeNull();
    expect(Object.is(extra.zero, 0)).toBe(true);
  });

  it('treats id: "" as no id and keeps YAML 1.2 strings such as on and yes', async () => {
    const result = await load({ 'a.yaml': `id: ""\n${VALID.replace('owner: ops', 'owner: "on"\n  tags: [yes, on, no]')}` });
    expect(result.diagnostics).toEqual([]);
    expect(result.dashboards[0]?.idSource).toBe('derived');
    expect((result.dashboards[0]?.body as Dashboard | undefined)?.dashboardMetadata.tags).toEqual(['yes', 'on', 'no']);
  });

  it('points a wrong type at the offending node', async () => {
    const result = await load({ 'a.yaml': VALID.replace('top: 0', 'top: abc') });
    expect(result.diagnostics.map(where)).toEqual(['dashboards/a.yaml:8:20 tiles[0].bounds.top']);
    expect(result.diagnostics[0]?.message).toMatch(/expected number/);
  });

  it('points a missing required member at its parent mapping', async () => {
    const result = await load({ 'a.yaml': VALID.replace(/ {4}bounds:.*\n/, '') });
    expect(result.diagnostics.map((d) => `${where(d)} ${d.message}`)).toEqual(['dashboards/a.yaml:6:5 tiles[0].bounds Required']);
    expect(formatDiagnostic(result.diagnostics[0] as Diagnostic)).toBe('dashboards/a.yaml:6:5  tiles[0].bounds: Required');
  });

  it('points an unknown tileType at its value and names it', async () => {
    const result = await load({ 'a.yaml': VALID.replace('tileType: MARKDOWN', 'tileType: MARKDOWNN') });
    expect(result.diagnostics.map(where)).toEqual(['dashboards/a.yaml:7:15 tiles[0].tileType']);
    expect(result.diagnostics[0]?.message).toBe('unknown value "MARKDOWNN"; did you mean MARKDOWN?');
  });

  it('reports a YAML syntax error with the line and column yaml gives', async () => {
    const text = VALID.replace('owner: ops', 'owner: [ops');
    const result = await load({ 'a.yaml': text });
    const expected = parseDocument(text).errors[0]?.linePos?.[0];
    expect(result.dashboards).toEqual([]);
    expect(result.diagnostics[0]).toMatchObject({ file: 'dashboards/a.yaml', line: 5, col: 1, path: '' });
    expect(result.diagnostics[0]).toMatchObject({ line: expected?.line, col: expected?.col });
    expect(result.diagnostics[0]?.message).toMatch(/^Flow sequence in block collection must be sufficiently indented/);
  });

  it('reports a duplicate key at the second occurrence, with schema problems of the same file', async () => {
    const result = await load({ 'a.yaml': VALID.replace('owner: ops', 'owner: ops\n  name: Again\n  shared: maybe') });
    expect(result.diagnostics.map((d) => `${where(d)} ${d.message}`)).toEqual([
      'dashboards/a.yaml:5:3  Map keys must be unique: name appears more than once',
      'dashboards/a.yaml:6:11 dashboardMetadata.shared Invalid input: expected boolean, received string',
    ]);
  });

  it('reports two files with the same id once, naming both files', async () => {
    const id = 'id: 6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6\n';
    const result = await load({ 'one.yaml': id + VALID, 'two.yaml': `# copy\n${id}${VALID}` });
    expect(result.dashboards.map((d) => d.file)).toEqual(['dashboards/one.yaml']);
    expect(result.diagnostics).toHaveLength(1);
    expect(formatDiagnostic(result.diagnostics[0] as Diagnostic)).toBe(
      'dashboards/two.yaml:2:5  id: duplicate dashboard id 6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6: dashboards/one.yaml:1:5 has the same id; one of the two is a copy: remove the id: line from the copy so it gets its own id from its path',
    );
  });

  it('gives real lines and columns for JSON files', async () => {
    const json = JSON.stringify({ dashboardMetadata: { name: 'x', owner: 'y' }, tiles: [{ name: 't', tileType: 'HEADER', bounds: { top: '1' } }] }, null, 2);
    const result = await load({ 'a.json': json });
    expect(result.diagnostics.map(where)).toEqual(['dashboards/a.json:11:16 tiles[0].bounds.top']);
  });

  it('reports every problem of every file in one run', async () => {
    const result = await load({
      'a.yaml': VALID.replace('top: 0', 'top: x').replace('left: 0', 'left: y'),
      'b.yaml': 'apiVersion: v1\nkind: ConfigMap\n',
      'c.yaml': '- a\n- b\n',
      'd.yaml': `${VALID}---\n${VALID}`,
      'e.yaml': `id: not-a-uuid\n${VALID}`,
      'f.yaml': '',
      'g.yaml': VALID,
    });
    expect(result.dashboards.map((d) => d.file)).toEqual(['dashboards/g.yaml']);
    expect(result.diagnostics.map((d) => `${where(d)} ${d.message.split(':')[0]}`)).toEqual([
      'dashboards/a.yaml:8:20 tiles[0].bounds.top Invalid input',
      'dashboards/a.yaml:8:29 tiles[0].bounds.left Invalid input',
      'dashboards/b.yaml:1:1  not a dashboard',
      'dashboards/c.yaml:1:1  not a dashboard',
      'dashboards/d.yaml:10:1  more than one YAML document (---)',
      'dashboards/e.yaml:1:5 id Not a valid UUID',
      'dashboards/f.yaml:1:1  not a dashboard',
    ]);
  });

  it('skips dotfiles, dot-directories and other extensions', async () => {
    const result = await load({ '.hidden.yaml': 'x', '.git/a.yaml': 'x', 'notes.md': 'x', 'ok.YAML': VALID });
    expect(result.files).toBe(1);
    expect(result.diagnostics).toEqual([]);
  });

  it('reports a missing folder as a diagnostic without a position', async () => {
    const root = await project({});
    const result = await loadDesired({ dir: 'nope', cwd: root });
    expect(result).toMatchObject({ dashboards: [], files: 0 });
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([expect.stringMatching(/^nope {2}dashboards folder not found: nope;/)]);
  });

  it('loads only the named files when asked, skipping deleted and foreign ones', async () => {
    const root = await project({ 'a.yaml': VALID, 'b.yaml': VALID, 'c.yaml': 'broken: [' });
    const result = await loadDesired({ dir: 'dashboards', cwd: root, only: ['dashboards/b.yaml', join(root, 'dashboards/gone.yaml'), 'other/x.yaml'] });
    expect(result.files).toBe(1);
    expect(result.dashboards.map((d) => d.file)).toEqual(['dashboards/b.yaml']);
    expect(result.diagnostics).toEqual([]);
  });
});

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pinIds } from '../../src/reconcile/pin-ids.js';
import { deriveDashboardId, loadDesired } from '../../src/desired/load-desired.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'dashcd-pin-'));
  roots.push(root);
  await mkdir(join(root, 'dashboards'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'dashboards', name), text);
  return root;
}

const read = (root: string, name: string): Promise<string> => readFile(join(root, 'dashboards', name), 'utf8');

const COMMENTED = `# yaml-language-server: $schema=../dashcd.schema.json
# Team CPU board

dashboardMetadata:
  name: CPU   # shown in the list
  owner: ops
tiles: [] # filled later
`;

describe('pinIds', () => {
  it('inserts the derived id before the first key and keeps every comment and blank line', async () => {
    const root = await project({ 'cpu.yaml': COMMENTED });
    const id = deriveDashboardId('cpu.yaml');
    expect((await pinIds({ dir: 'dashboards', cwd: root })).pinned).toEqual([{ file: 'dashboards/cpu.yaml', id }]);
    const [head, rest] = [COMMENTED.slice(0, COMMENTED.indexOf('dashboardMetadata')), COMMENTED.slice(COMMENTED.indexOf('dashboardMetadata'))];
    expect(await read(root, 'cpu.yaml')).toBe(`${head}id: ${id}\n${rest}`);
  });

  it('fills an empty id in place', async () => {
    const root = await project({ 'a.yaml': `dashboardMetadata: {name: a, owner: o}\nid: ""  # pin me\ntiles: []\n` });
    await pinIds({ dir: 'dashboards', cwd: root });
    expect(await read(root, 'a.yaml')).toBe(`dashboardMetadata: {name: a, owner: o}\nid: ${deriveDashboardId('a.yaml')}  # pin me\ntiles: []\n`);
  });

  it('inserts "id" as the first key of a JSON file, which stays JSON', async () => {
    const json = JSON.stringify({ dashboardMetadata: { name: 'a', owner: 'o' }, tiles: [] }, null, 2);
    const root = await project({ 'a.json': json });
    await pinIds({ dir: 'dashboards', cwd: root });
    const pinned = await read(root, 'a.json');
    expect(Object.keys(JSON.parse(pinned) as object)).toEqual(['id', 'dashboardMetadata', 'tiles']);
    expect(pinned).toBe(json.replace('{\n', `{\n  "id": "${deriveDashboardId('a.json')}",\n`));
  });

  it('leaves files with an id and invalid files alone, and a second run pins nothing', async () => {
    const withId = `id: 6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6\n${COMMENTED}`;
    const root = await project({ 'a.yaml': withId, 'b.yaml': 'dashboardMetadata: {name: 1}\n', 'c.yaml': COMMENTED });
    expect((await pinIds({ dir: 'dashboards', cwd: root })).pinned.map((p) => p.file)).toEqual(['dashboards/c.yaml']);
    expect(await read(root, 'a.yaml')).toBe(withId);
    expect(await read(root, 'b.yaml')).toBe('dashboardMetadata: {name: 1}\n');
    expect((await pinIds({ dir: 'dashboards', cwd: root })).pinned).toEqual([]);
  });

  it('keeps the identity: after pinning, the same ids load from the files', async () => {
    const root = await project({ 'a.yaml': COMMENTED, 'b.yaml': COMMENTED.replace('CPU', 'Memory') });
    const before = await loadDesired({ dir: 'dashboards', cwd: root });
    await pinIds({ dir: 'dashboards', cwd: root });
    const after = await loadDesired({ dir: 'dashboards', cwd: root });
    expect(after.dashboards.map((d) => [d.id, d.idSource])).toEqual(before.dashboards.map((d) => [d.id, 'file']));
    expect(after.dashboards.map((d) => d.body)).toEqual(before.dashboards.map((d) => d.body));
  });
});

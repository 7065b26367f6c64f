import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../../src/environments/apply-overrides.js';
import type { DashcdBlock } from '../../../src/environments/dashcd-block.js';
import { loadTemplates, parseTemplateFile } from '../../../src/environments/load-templates.js';

const tile = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, tileType: 'MARKDOWN', bounds: { top: 0 }, markdown: name, ...extra });
const FILE = {
  dashboardMetadata: { name: 'D', owner: 'o', dashboardFilter: { timeframe: '-2h' } },
  tiles: [tile('A'), tile('B'), tile('C')],
};
const PROD = { name: 'prod', group: 'production' };

/** As a file holds it: the block inside the file's value (where origins are looked up) and parsed beside it. */
function layer(file: Record<string, unknown>, block: DashcdBlock, env = PROD): ReturnType<typeof applyOverrides> {
  return applyOverrides({ ...file, dashcd: block }, block, env);
}

describe('applyOverrides', () => {
  it('leaves a dashboard out of an environment its limit does not name', () => {
    expect(layer(FILE, { environments: ['dev'] })).toBeUndefined();
    expect(layer(FILE, { environments: ['production'] })?.value).toEqual(FILE);
  });

  it('merges the group override, then the environment override; null removes a member', () => {
    const layered = layer(
      FILE,
      {
        overrides: {
          production: { dashboardMetadata: { owner: 'group', dashboardFilter: { timeframe: '-7d' } } },
          prod: { dashboardMetadata: { owner: 'env', dashboardFilter: null } },
        },
      },
    );
    expect(layered?.value.dashboardMetadata).toEqual({ name: 'D', owner: 'env' });
    expect(layered?.originOf(['dashboardMetadata', 'owner'])).toEqual(['dashcd', 'overrides', 'prod', 'dashboardMetadata', 'owner']);
    expect(layered?.originOf(['dashboardMetadata', 'name'])).toEqual(['dashboardMetadata', 'name']);
  });

  it('matches override tiles by name whatever their position, appends new ones, and keeps where each came from', () => {
    const layered = layer(FILE, { tiles: { B: { environments: ['dev'] } }, overrides: { prod: { tiles: [{ name: 'New', tileType: 'MARKDOWN' }, { name: 'C', markdown: 'c in prod' }] } } });
    expect(layered?.value.tiles).toEqual([tile('A'), tile('C', { markdown: 'c in prod' }), { name: 'New', tileType: 'MARKDOWN' }]);
    expect(layered?.originOf(['tiles', 1, 'markdown'])).toEqual(['dashcd', 'overrides', 'prod', 'tiles', 1, 'markdown']);
    expect(layered?.originOf(['tiles', 1, 'bounds'])).toEqual(['tiles', 2, 'bounds']);
    expect(layered?.originOf(['tiles', 2, 'bounds'])).toEqual(['dashcd', 'overrides', 'prod', 'tiles', 0, 'bounds']);
    expect(layered?.problems).toEqual([]);
  });

  it('refuses to guess between tiles of one name, and names an unknown tile', () => {
    const twins = { ...FILE, tiles: [tile('A'), tile('A')] };
    expect(layer(twins, { tiles: { Z: { environments: ['prod'] } }, overrides: { prod: { tiles: [{ name: 'A', markdown: 'x' }] } } })?.problems).toEqual([
      { path: ['dashcd', 'tiles', 'Z'], message: 'no tile is named "Z"' },
      { path: ['dashcd', 'overrides', 'prod', 'tiles', 0], message: '2 tiles are named "A": give them distinct names to override one' },
    ]);
  });
});

describe('loading templates', () => {
  it('parses a file whose values are templates, which the dashboard schema alone would refuse', () => {
    // In a flow mapping `{` is YAML's: a template there must be quoted, and the parser says where.
    const flow = parseTemplateFile('dashboardMetadata: { name: x, owner: o }\ntiles:\n  - bounds: { top: ${{ values.top }} }\n');
    expect(flow.problems).toEqual([{ line: 3, col: 20, path: '', message: expect.stringContaining('must be quoted') }]);
    expect(parseTemplateFile('dashboardMetadata: { name: x, owner: o }\ntiles:\n  - bounds:\n      top: ${{ values.top }}\n')).toEqual({
      value: { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [{ bounds: { top: '${{ values.top }}' } }] },
    });
    expect(parseTemplateFile('- a\n')).toEqual({ problems: [{ line: 1, col: 1, path: '', message: 'not a dashboard: expected a mapping with dashboardMetadata and tiles' }] });
  });

  it('reads a folder, reporting files that do not parse and a missing folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dashcd-templates-'));
    try {
      await mkdir(join(root, 'dashboards/team'), { recursive: true });
      await writeFile(join(root, 'dashboards/team/a.yaml'), 'dashboardMetadata: { name: A, owner: o }\ntiles: []\n');
      await writeFile(join(root, 'dashboards/b.yaml'), 'dashboardMetadata: [\n');
      const loaded = await loadTemplates({ dir: 'dashboards', cwd: root });
      expect(loaded.count).toBe(2);
      expect(loaded.files.map((f) => [f.file, f.name])).toEqual([['dashboards/team/a.yaml', 'team/a.yaml']]);
      expect(loaded.diagnostics.map((d) => [d.file, d.line])).toEqual([['dashboards/b.yaml', 2]]);
      expect((await loadTemplates({ dir: 'nope', cwd: root })).diagnostics[0]?.message).toBe(
        'dashboards folder not found: nope; create it, or point --dir at the folder holding the dashboard files',
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moreProblems, problemTotal } from '../../src/desired/capped-problems.js';
import { createDesiredCache, loadDesired } from '../../src/desired/load-desired.js';
import { MAX_LOAD_PROBLEMS } from '../../src/desired/problem-budget.js';

/**
 * A file of 60 tiles that are nothing but an unknown key: three problems each (tileType, name, bounds), 180 in all,
 * listed as its first 100 and a line for the other 80. 99 such files list 9,999 lines, 100 of them 10,100.
 */
const BAD_TILES = 60;
const badFile = (n: number): string => `dashboardMetadata:\n  name: D${n}\n  owner: ops\ntiles:\n${'  - {bogus: 1}\n'.repeat(BAD_TILES)}`;
const WHY = `the folder has over ${MAX_LOAD_PROBLEMS.toLocaleString('en-US')} problems, so each file lists only its first`;

const roots: string[] = [];
async function folder(files: number): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'dashcd-budget-'));
  roots.push(root);
  await mkdir(join(root, 'dashboards'));
  await Promise.all(Array.from({ length: files }, (_, n) => writeFile(join(root, 'dashboards', `d${String(n).padStart(3, '0')}.yaml`), badFile(n))));
  return root;
}

let within = '';
let past = '';
beforeAll(async () => {
  [within, past] = await Promise.all([folder(99), folder(100)]);
});
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

describe('what a load lists of a folder’s problems', () => {
  it('is every file’s first hundred and a line for the rest, up to ten thousand lines', async () => {
    const { diagnostics } = await loadDesired({ dir: 'dashboards', cwd: within, workers: 0 });
    expect(diagnostics).toHaveLength(99 * 101);
    expect(diagnostics[100]).toMatchObject({ file: 'dashboards/d000.yaml', path: '', message: moreProblems(3 * BAD_TILES - 100) });
    expect(problemTotal(diagnostics)).toBe(99 * 3 * BAD_TILES);
  });

  it('past them, each file’s first problem and a line counting the rest, whichever thread checked which file', async () => {
    const inline = await loadDesired({ dir: 'dashboards', cwd: past, workers: 0 });
    expect(inline.diagnostics).toHaveLength(200);
    expect(inline.diagnostics.slice(0, 2)).toEqual([
      { file: 'dashboards/d000.yaml', line: 5, col: 5, path: 'tiles[0].tileType', message: expect.stringMatching(/^Required/) },
      { file: 'dashboards/d000.yaml', line: 5, col: 5, path: '', message: moreProblems(3 * BAD_TILES - 1, WHY) },
    ]);
    expect(problemTotal(inline.diagnostics)).toBe(100 * 3 * BAD_TILES);
    const pooled = await loadDesired({ dir: 'dashboards', cwd: past, workers: 2 });
    expect(pooled.diagnostics).toEqual(inline.diagnostics);
  });

  it('caches only whole checks: a later load of fewer files lists them whole', async () => {
    const cache = createDesiredCache();
    await loadDesired({ dir: 'dashboards', cwd: past, workers: 0, cache });
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(100);
    const some = await loadDesired({ dir: 'dashboards', cwd: past, workers: 0, cache, only: ['dashboards/d000.yaml', 'dashboards/d099.yaml'] });
    expect(some.diagnostics).toHaveLength(2 * 101);
    expect(some.diagnostics.filter((d) => d.message.endsWith(WHY))).toEqual([]);
  });
});

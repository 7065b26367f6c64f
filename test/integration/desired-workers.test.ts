import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSources, sourceTexts } from '../../src/desired/check-pool.js';
import { checkSource } from '../../src/desired/check-source.js';
import { toDashboardYaml } from '../../src/desired/dashboard-yaml.js';
import { createDesiredCache, loadDesired } from '../../src/desired/load-desired.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS = CORPUS_DASHBOARDS_DIR;

let root = '';

/** 105 files: small corpus dashboards as YAML (valid and the two invalid ones), plus broken and duplicate files. */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dashcd-workers-'));
  const dir = join(root, 'dashboards');
  await mkdir(dir);
  const names = (await readdir(CORPUS)).filter((f) => f.endsWith('.json')).sort();
  const sources = await Promise.all(names.map(async (f) => JSON.parse(await readFile(join(CORPUS, f), 'utf8')) as Record<string, unknown>));
  const small = sources.filter((s) => JSON.stringify(s).length < 20_000);
  for (let i = 0; i < 100; i++) {
    const { id: _id, ...dashboard } = small[i % small.length] as Record<string, unknown>;
    await writeFile(join(dir, `d${String(i).padStart(3, '0')}.yaml`), toDashboardYaml(dashboard));
  }
  const dup = 'id: 11111111-2222-3333-4444-555555555555\ndashboardMetadata: {name: n, owner: o}\ntiles: []\n';
  await writeFile(join(dir, 'e-dup-1.yaml'), dup);
  await writeFile(join(dir, 'e-dup-2.yaml'), dup);
  await writeFile(join(dir, 'e-syntax.yaml'), 'dashboardMetadata: {name: n\ntiles: [\n');
  await writeFile(join(dir, 'e-type.json'), '{"dashboardMetadata": {"name": 1, "owner": "o"}, "tiles": {}}');
  await writeFile(join(dir, 'e-tabs.yaml'), 'dashboardMetadata:\n\tname: n\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('loadDesired on worker threads', () => {
  it('gives exactly the same result with workers: 0 and workers: 2', async () => {
    const inline = await loadDesired({ dir: 'dashboards', cwd: root, workers: 0 });
    const pooled = await loadDesired({ dir: 'dashboards', cwd: root, workers: 2 });
    expect(inline.files).toBe(105);
    expect(inline.diagnostics.length).toBeGreaterThan(5);
    expect(pooled).toEqual(inline);
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(inline));
  });

  it('really spreads batches over the worker threads, with results in input order', async () => {
    const names = (await readdir(join(root, 'dashboards'))).sort();
    const sources = await Promise.all(names.map((n) => readFile(join(root, 'dashboards', n), 'utf8')));
    const threads: string[] = [];
    const pooled = await checkSources(sourceTexts(sources), 1, { onBatch: (thread) => threads.push(thread) });
    expect(threads).toContain('worker');
    expect(pooled).toEqual(sources.map((s) => checkSource(s)));
  });

  it('reuses cached checks for unchanged files and hands out copies callers may change', async () => {
    const cache = createDesiredCache();
    const first = await loadDesired({ dir: 'dashboards', cwd: root, workers: 0, cache });
    // Identical files share one entry: 105 files, fewer distinct contents.
    expect(cache.size).toBeLessThan(105);
    (first.dashboards[0]?.body.tiles as unknown[]).length = 0;
    const second = await loadDesired({ dir: 'dashboards', cwd: root, workers: 0, cache });
    const fresh = await loadDesired({ dir: 'dashboards', cwd: root, workers: 0 });
    expect(second).toEqual(fresh);
  });
});

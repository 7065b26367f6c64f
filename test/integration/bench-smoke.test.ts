import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardYaml, generateDashboard } from '../../bench/data/dashboards.js';
import { generateEventLines } from '../../bench/data/events.js';
import { FIGURES } from '../../bench/figures/index.js';
import { IN_MEMORY_FREE_BYTES } from '../../bench/figures/put.js';
import { memoryBackedDir } from '../../bench/lib/memory-dir.js';
import { CLIENT_NODE_OPTIONS } from '../../bench/lib/options.js';
import type { BenchResults } from '../../bench/lib/report.js';
import { Dashboard } from '../../src/schema/dashboard.js';
import { transpileBench } from '../helpers/bench-build.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');

describe('bench data generators', () => {
  it('generate the same dashboard for the same seed and index, and a different one for another index', () => {
    expect(JSON.stringify(generateDashboard(7, 3))).toBe(JSON.stringify(generateDashboard(7, 3)));
    expect(JSON.stringify(generateDashboard(7, 3))).not.toBe(JSON.stringify(generateDashboard(7, 4)));
  });

  it('generate valid dashboards of 20 mixed tiles weighing 15–21 KB as compact JSON', () => {
    for (let i = 0; i < 50; i++) {
      const dashboard = generateDashboard(1, i);
      expect(Dashboard.safeParse(dashboard).success).toBe(true);
      const tiles = dashboard['tiles'] as { tileType: string }[];
      expect(tiles).toHaveLength(20);
      expect(new Set(tiles.map((t) => t.tileType)).size).toBeGreaterThanOrEqual(8);
      const size = JSON.stringify(dashboard).length;
      expect(size).toBeGreaterThan(15_000);
      expect(size).toBeLessThan(21_000);
      expect(dashboardYaml(dashboard)).toContain('tileType: DATA_EXPLORER');
    }
  });

  it('generate events newest first whose eventIds are 64-bit integers written digit for digit', () => {
    const lines = [...generateEventLines({ count: 200, seed: 1, anchorMs: 1_700_000_000_000, spanMs: 86_400_000 })];
    const ids = lines.map((l) => /"eventId":(-?\d+),/.exec(l)?.[1] ?? '');
    expect(ids.some((id) => id.startsWith('-') && !Number.isSafeInteger(Number(id)))).toBe(true);
    for (const [i, line] of lines.entries()) {
      const { id, startTime } = JSON.parse(line) as { id: string; startTime: number };
      expect(id).toBe(`${ids[i]}_${startTime}`);
    }
    const starts = lines.map((l) => (JSON.parse(l) as { startTime: number }).startTime);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
  });
});

describe('npm run bench -- --smoke', () => {
  let dir = '';
  let results: BenchResults;
  let exitCode = 0;
  let stderr = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-bench-smoke-'));
    const built = join(dir, 'build');
    await transpileBench(repo, built);
    const out = join(dir, 'latest.json');
    try {
      // As `npm run bench` starts it.
      await run(process.execPath, [...CLIENT_NODE_OPTIONS, join(built, 'bench/run.js'), '--smoke', '--out', out], { cwd: repo, maxBuffer: 16 << 20 });
    } catch (error) {
      exitCode = (error as { code?: number }).code ?? 1;
      stderr = (error as { stderr?: string }).stderr ?? '';
    }
    results = JSON.parse(await readFile(out, 'utf8')) as BenchResults;
    // About 20 s on an idle 2-core machine; the bound only ends a hung run, so a busy machine does not fail it.
  }, 600_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints its usage for --help and -h, exits 0 and runs nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const { stdout } = await run(process.execPath, [join(dir, 'build', 'bench/run.js'), flag, '--out', join(dir, 'help.json')], { cwd: repo });
      expect(stdout).toMatch(/^usage: npm run bench -- \[figure \.\.\.\]/);
      expect(stdout).toContain('--before');
    }
    await expect(readFile(join(dir, 'help.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('exits 0 with every implemented figure measured', () => {
    const failed = results.figures.filter((f) => f.status === 'failed').map((f) => `${f.name}: ${f.reason ?? ''}`);
    expect(failed, stderr.slice(-4000)).toEqual([]);
    expect(exitCode).toBe(0);
  });

  it('lists every figure of the registry, in order, with machine info', () => {
    expect(results.figures.map((f) => f.name)).toEqual(FIGURES.map((f) => f.name));
    expect(results.mode).toBe('smoke');
    expect(results.machine.cpus).toBeGreaterThan(0);
    expect(results.machine.node).toBe(process.version);
  });

  it('gives every measured figure numeric values, baselines and goals', () => {
    for (const figure of FIGURES) {
      const result = results.figures.find((f) => f.name === figure.name);
      // A figure whose component has not landed says so (never fakes a value); every other one is measured.
      expect(['measured', 'not-yet-measured'], `${figure.name}: ${result?.reason ?? ''}`).toContain(result?.status);
      if (result?.status !== 'measured') {
        expect(result?.reason, figure.name).toBeTruthy();
        continue;
      }
      expect(result?.rows.length, figure.name).toBeGreaterThan(0);
      for (const row of result?.rows ?? []) {
        expect(Number.isFinite(row.value.median), `${figure.name}: ${row.label}`).toBe(true);
        if (row.baseline) expect(Number.isFinite(row.baseline.value.median), `${figure.name}: ${row.label} baseline`).toBe(true);
        if (row.goal) expect(typeof row.goal.met).toBe('boolean');
      }
      for (const curve of result?.curves ?? []) {
        for (const point of curve.points) expect(Number.isFinite(point.perItem), `${figure.name}: ${curve.label}`).toBe(true);
      }
    }
  });

  it('compares each full pass of events pages with a bare server doing the same reads of the log, and from memory', () => {
    const pages = results.figures.find((f) => f.name === 'events-page');
    const passes = (pages?.rows ?? []).filter((row) => row.label.startsWith('events page p99 over'));
    expect(passes.map((row) => row.baseline?.label)).toEqual(Array(3).fill('bare node:http, same client, the same positioned reads of the events log'));
    for (const row of passes) expect(row.note).toMatch(/; \d+\.\d\d× the bare server sending pages from memory$/);
    expect(Object.keys(pages?.details?.['memoryPasses'] ?? {})).toContain('p99 entityId');
  });

  it('measures PUT against a second server without a disk wherever the machine has a tmpfs, and says so where not', async () => {
    const put = results.figures.find((f) => f.name === 'put');
    const rows = (put?.rows ?? []).filter((row) => row.label.includes('without a disk'));
    const shmIsTmpfs = (await memoryBackedDir(IN_MEMORY_FREE_BYTES, ['/dev/shm'])) !== undefined;
    expect(rows.map((row) => row.unit)).toEqual(shmIsTmpfs ? ['ms', 'req/s'] : []);
    for (const row of rows) expect(row.baseline?.value.runs.length).toBe(results.settings['runs']);
    expect(String(put?.details?.['inMemoryDataDir'])).toMatch(shmIsTmpfs ? /^\/dev\/shm\/dashcd-bench-put-/ : /no tmpfs/);
  });

  it('records the Node options the bench process ran with, as npm run bench starts it', async () => {
    expect(results.settings['benchNodeOptions']).toEqual([...CLIENT_NODE_OPTIONS]);
    const { scripts } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['bench']).toContain(`node ${CLIENT_NODE_OPTIONS.join(' ')} dist-bench/bench/run.js`);
  });

  it('writes the printed table beside the results file', async () => {
    const table = await readFile(join(dir, 'latest.md'), 'utf8');
    expect(table).toContain('| Figure | Value | Baseline (same run) | Ratio | Goal | Met |');
    expect(table).toContain(`Machine: ${results.machine.cpus} × `);
    for (const figure of results.figures) {
      if (figure.status === 'measured') for (const row of figure.rows) expect(table).toContain(row.label);
      else expect(table).toContain(figure.title);
    }
  });
});

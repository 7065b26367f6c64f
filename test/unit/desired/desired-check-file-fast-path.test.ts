import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { checkDashboardSource } from '../../../src/desired/check-file.js';
import { CORPUS_DASHBOARDS_DIR } from '../../helpers/corpus.js';

/*
 * check-file.ts promises that a file the fast parser and the schema both accept never reaches `yaml` (the daemon
 * checks thousands of files; `yaml` with source ranges is the slow path). Counting calls into `yaml` tells the two
 * paths apart: their results are equal by design (desired-check-file.test.ts proves that).
 */
const yamlCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('yaml', async (importOriginal) => {
  const actual = await importOriginal<typeof import('yaml')>();
  return {
    ...actual,
    parseAllDocuments: (...args: Parameters<typeof actual.parseAllDocuments>) => {
      yamlCalls.count++;
      return actual.parseAllDocuments(...args);
    },
  };
});

beforeEach(() => {
  yamlCalls.count = 0;
});

// A real dashboard (keptn's problem-tile test dashboard): JSON, which is YAML, and valid as it is.
const CORPUS_FILE = join(CORPUS_DASHBOARDS_DIR, 'keptn-dtsvc__problem_tile-problem_tile_success-dashboard.json');
const M = 'dashboardMetadata: {name: a, owner: b}\n';
/** A DATA_EXPLORER tile (its visualConfig is open) holding `levels` arrays one inside the other. */
const explorer = (levels: number) =>
  `${M}tiles:\n  - name: t\n    tileType: DATA_EXPLORER\n    bounds: {top: 0, left: 0, width: 1, height: 1}\n    queries: []\n    visualConfig: {rules: ${'['.repeat(levels)}${']'.repeat(levels)}}\n`;

describe('checkDashboardSource: which path decides', () => {
  it('decides a valid real dashboard on the fast path, without yaml', () => {
    const source = readFileSync(CORPUS_FILE, 'utf8');
    expect(checkDashboardSource(source)).toStrictEqual({ ok: true, value: JSON.parse(source) });
    expect(yamlCalls.count).toBe(0);
  });

  it('runs yaml when asked not to use the fast path, with the same result', () => {
    const source = readFileSync(CORPUS_FILE, 'utf8');
    expect(checkDashboardSource(source, { useFastPath: false })).toStrictEqual({ ok: true, value: JSON.parse(source) });
    expect(yamlCalls.count).toBe(1);
  });

  it('leaves a file with an unknown key to yaml, which locates the warning', () => {
    expect(checkDashboardSource(`${M}tiles: []\ntile: []\n`)).toStrictEqual({
      ok: true,
      value: { dashboardMetadata: { name: 'a', owner: 'b' }, tiles: [], tile: [] },
      warnings: [{ line: 3, col: 1, path: 'tile', message: 'unknown key; did you mean tiles?' }],
    });
    expect(yamlCalls.count).toBe(1);
  });

  it('leaves a malformed id to yaml', () => {
    expect(checkDashboardSource(`id: cpu\n${M}tiles: []\n`).ok).toBe(false);
    expect(yamlCalls.count).toBe(1);
  });

  it('accepts a value nested to the limit on the fast path, and refuses one nested deeper wherever it is valid otherwise', () => {
    // dashboard 1, tiles 2, the tile 3, visualConfig 4, rules 5: 60 arrays reach depth 64, 61 reach depth 65.
    const accepted = checkDashboardSource(explorer(60));
    expect(accepted.ok).toBe(true);
    expect(yamlCalls.count).toBe(0);
    // `    visualConfig: {rules: ` is 26 characters: the first `[` is column 27, the 61st column 87.
    expect(checkDashboardSource(explorer(61))).toStrictEqual({
      ok: false,
      problems: [
        {
          line: 7,
          col: 87,
          path: `tiles[0].visualConfig.rules${'[0]'.repeat(60)}`,
          message: 'nested deeper than a target accepts (64 levels of objects and arrays): flatten it',
        },
      ],
    });
    expect(checkDashboardSource(explorer(61), { useFastPath: false })).toStrictEqual(checkDashboardSource(explorer(61)));
  });
});

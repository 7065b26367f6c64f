import { describe, expect, it } from 'vitest';
import { planShims, srcImports, type ShimFile, type Tree } from '../../../bench/lib/before-shims.js';
import { renderCompare, type CompareResults } from '../../../bench/lib/compare-report.js';
import { laneFirst } from '../../../bench/lib/compare-runs.js';
import type { Row } from '../../../bench/lib/figure.js';
import { buildArgv, CLIENT_NODE_OPTIONS, missingClientOptions, parseBenchOptions } from '../../../bench/lib/options.js';
import type { BenchResults, FigureResult } from '../../../bench/lib/report.js';
import { summarize } from '../../../bench/lib/stats.js';

/** A tree from a map of repository-relative paths to contents. */
function tree(files: Record<string, string>): Tree {
  return {
    read: (path) => files[path],
    list: (dir) => Object.keys(files).filter((f) => f.startsWith(`${dir}/`) && f.endsWith('.ts')),
  };
}

const SERVER_CHILD = [
  "import { startServer } from '../../src/server/create-server.js';",
  "import { SERVE_HOT_BYTES } from '../../src/server/store/served-bytes.js';",
  '  const server = await startServer({ dataDir, hotBytes: SERVE_HOT_BYTES, log });',
  '  const settled = async (): Promise<void> => {',
  '    await local.dashboards.flushed();',
  '  };',
  '',
].join('\n');

describe('the before build\'s shims', () => {
  const bench: ShimFile[] = [
    { path: 'bench/children/dashcd-server.ts', content: SERVER_CHILD },
    {
      path: 'bench/lib/uses.ts',
      content: [
        "import { openEventStore } from '../../src/server/feed/open-event-store.js';",
        "import { MAX_JOURNAL_BYTES } from '../../src/server/store/journaled-files.js';",
        "import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';",
        "import { serverNodeOptions } from '../../src/server/server-node-options.js';",
        "import { PlatformScope } from '../../src/schema/scopes.js';",
      ].join('\n'),
    },
  ];
  const now = tree({
    'src/server/create-server.ts': 'export interface ServerOptions { hotBytes?: number }',
    'src/server/store/dashboard-store.ts': '  flushed(): Promise<void>;',
    'src/server/store/journaled-files.ts': "import { mapConcurrent } from '../../lib/concurrency.js';\nexport const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;\n",
    'src/server/server-node-options.ts': "import { availableParallelism } from 'node:os';\nexport function serverNodeOptions(): string[] { return []; }\n",
    'src/client/documents-api.ts': "import { Pool } from 'undici';\nexport function createDocumentsClient() {}\n",
  });
  const old = tree({
    'src/server/create-server.ts': 'export interface ServerOptions { dataDir: string }\nexport async function startServer(options: ServerOptions) {}',
    'src/server/feed/event-store.ts': 'export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {}',
    'src/schema/scopes.ts': "export const Scope = z.enum(['ReadConfig']);",
  });
  const plan = planShims(bench, now, old, '6ad1603');
  const written = Object.fromEntries(plan.src.map((f) => [f.path, f.content]));

  it('drops the server options and waits the old server does not have, imports included', () => {
    const child = plan.bench.find((f) => f.path === 'bench/children/dashcd-server.ts')?.content ?? '';
    expect(child).not.toMatch(/SERVE_HOT_BYTES|hotBytes|flushed/);
    expect(child).toContain('startServer({ dataDir, log })');
  });

  it('keeps what the old server has', () => {
    const same = planShims(bench, now, tree({ 'src/server/create-server.ts': 'readonly hotBytes?: number;', 'src/server/store/dashboard-store.ts': 'flushed: () => files.flushed(),' }), 'abc1234');
    expect(same.bench[0]?.content).toBe(SERVER_CHILD);
  });

  it('copies self-contained helpers, re-exports moved names, copies constants and stubs the rest as absent', () => {
    expect(written['src/server/server-node-options.ts']).toBe(now.read('src/server/server-node-options.ts'));
    expect(written['src/server/feed/open-event-store.ts']).toContain("export { openEventStore } from './event-store.js';");
    expect(written['src/server/store/journaled-files.ts']).toContain('export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;');
    const documents = written['src/client/documents-api.ts'] ?? '';
    expect(documents).toContain('export type DocumentsClient = any;');
    expect(documents).toContain('createDocumentsClient (src/client/documents-api.ts) is not in 6ad1603');
    expect(documents).toContain("from '../../bench/lib/figure.js'");
    // An old module that lacks a name keeps its own text, the stub appended.
    expect(written['src/schema/scopes.ts']).toMatch(/^export const Scope = z\.enum\(\['ReadConfig'\]\);\n[\s\S]*export const PlatformScope: any = absent\(/);
    expect(plan.applied.map((line) => line.split(':')[0])).toEqual(['server options', 'server options', 'absent', 'absent', 'absent', 'moved', 'harness helper', 'constant']);
  });

  it('fails loudly when today\'s server child no longer has the text a shim removes', () => {
    const changed = [{ path: 'bench/children/dashcd-server.ts', content: SERVER_CHILD.replace('hotBytes: SERVE_HOT_BYTES, ', 'hotBytes: SERVE_HOT_BYTES * 2, ') }];
    expect(() => planShims(changed, now, old, '6ad1603')).toThrow(/before shim "hotBytes" no longer matches/);
  });

  it('reads named imports from src, type-only ones marked', () => {
    expect(srcImports('bench/figures/x.ts', "import { a, type B } from '../../src/lib/y.js';\nimport type { C } from '../../src/z.js';\nimport { d } from './local.js';")).toEqual([
      { module: 'src/lib/y.ts', name: 'a', typeOnly: false },
      { module: 'src/lib/y.ts', name: 'B', typeOnly: true },
      { module: 'src/z.ts', name: 'C', typeOnly: true },
    ]);
  });
});

describe('the before option', () => {
  it('takes a commit and passes every other option on to both builds, without figures, --before and --out', () => {
    expect(parseBenchOptions(['--before', '6ad1603', 'get']).before).toBe('6ad1603');
    expect(parseBenchOptions(['get']).before).toBeUndefined();
    expect(() => parseBenchOptions(['--before', '6ad1603; rm'])).toThrow(/--before needs a commit/);
    expect(buildArgv(['get', '--before', '6ad1603', '--smoke', '--runs', '3', 'put', '--out', 'x.json', '--plan-curve=2,4'])).toEqual(['--smoke', '--runs', '3', '--plan-curve', '2,4']);
  });

  it('--now-first orders the sitting, is refused without --before and is not passed on to the builds', () => {
    expect(parseBenchOptions(['--before', '6ad1603', '--now-first']).nowFirst).toBe(true);
    expect(parseBenchOptions(['--before', '6ad1603']).nowFirst).toBe(false);
    expect(() => parseBenchOptions(['--now-first', 'get'])).toThrow('--now-first orders a compare sitting: give --before COMMIT too');
    expect(buildArgv(['--before', '6ad1603', '--now-first', '--runs', '3', 'events-page'])).toEqual(['--runs', '3']);
  });
});

describe("the bench client's Node options", () => {
  it('are the pool of 1 and the old generation the servers start with', () => {
    expect(CLIENT_NODE_OPTIONS).toEqual(['--v8-pool-size=1', '--initial-old-space-size=64']);
  });

  it('are missing unless given with their values, on the command line or in NODE_OPTIONS', () => {
    expect(missingClientOptions([], undefined)).toEqual(['--v8-pool-size=1', '--initial-old-space-size=64']);
    expect(missingClientOptions(['--v8-pool-size=1', '--initial-old-space-size=8'], undefined)).toEqual(['--initial-old-space-size=64']);
    expect(missingClientOptions(['--v8-pool-size=1'], ' --max-old-space-size=512  --initial-old-space-size=64')).toEqual([]);
    expect(missingClientOptions(['--initial-old-space-size=64', '--v8-pool-size=1'], '')).toEqual([]);
    expect(missingClientOptions(['--v8_pool_size=1'], '--initial_old_space_size=64')).toEqual([]);
  });
});

describe('which build goes first in each lane', () => {
  it('alternates lane by lane from the old commit, or from today with --now-first', () => {
    expect([0, 1, 2, 3].map((lane) => laneFirst(lane, false))).toEqual(['before', 'now', 'before', 'now']);
    expect([0, 1, 2, 3].map((lane) => laneFirst(lane, true))).toEqual(['now', 'before', 'now', 'before']);
  });
});

const MACHINE = { cpus: 2, cpuModel: 'test', memoryGb: 1, node: 'v20', platform: 'linux-x64', kernel: '6', uvThreadpoolSize: 4, gitCommit: 'abc', gitDirty: false, loadAverageAtStart: 0 };

const row = (label: string, better: Row['better'], value: number, baseline?: number): Row => ({
  label,
  unit: 'u',
  better,
  value: summarize([value]),
  ...(baseline === undefined ? {} : { baseline: { label: 'bare', value: summarize([baseline]) } }),
});

const figure = (name: string, rows: Row[], rest: Partial<FigureResult> = {}): FigureResult => ({ name, title: `${name} title`, goal: 'g', status: 'measured', takenAt: '2026-11-28T00:00:00.000Z', rows, ...rest });

const results = (figures: FigureResult[]): BenchResults => ({ schemaVersion: 1, takenAt: '2026-11-28T00:00:00.000Z', mode: 'full', machine: MACHINE, settings: { runs: 3, warmups: 1 }, figures });

describe('the before / now table', () => {
  const compare: CompareResults = {
    schemaVersion: 1,
    takenAt: '2026-11-28T00:00:00.000Z',
    before: {
      commit: '6ad1603',
      shims: ['server options: x'],
      results: results([
        figure('put', [row('req/s', 'higher', 1000, 2000), row('p99', 'lower', 10, 8)]),
        figure('docs', [], { status: 'not-yet-measured', reason: 'createCredential (src/x.ts) is not in 6ad1603' }),
        figure('start', [row('start', 'lower', 1)]),
      ]),
    },
    now: { commit: 'abc', results: results([figure('put', [row('req/s', 'higher', 2500, 2000), row('p99', 'lower', 20, 8)]), figure('docs', [row('documents req/s', 'higher', 300, 600)]), figure('start', [row('start', 'lower', 1.02)])]) },
    order: [{ figures: ['put'], first: 'before' }],
  };
  const cells = Object.fromEntries(
    renderCompare(compare)
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Figure'))
      .map((l) => l.slice(2, -2).split(' | '))
      .map(([label = '', ...rest]) => [label, rest]),
  );

  it('shows both values, each beside its own baseline ratio, and now / before in the row\'s direction', () => {
    expect(cells['req/s']).toEqual(['1,000 u', '0.50×', '2,500 u', '1.25×', '2.50× (better, one value)', '2.50× (better, one value)']);
    expect(cells['p99']).toEqual(['10 u', '1.25×', '20 u', '2.50×', '2× (worse, one value)', '2× (worse, one value)']);
    expect(cells['start']).toEqual(['1 u', '—', '1.02 u', '—', '1.02× (same)', '—']);
  });

  it('compares each build against its own baseline: a machine slower while one build ran does not read as a change', () => {
    const drift: CompareResults = {
      ...compare,
      before: { ...compare.before, results: results([figure('get', [row('get req/s', 'higher', 1000, 1250), row('get p99', 'lower', 2, 2.5)])]) },
      now: { ...compare.now, results: results([figure('get', [row('get req/s', 'higher', 800, 1000), row('get p99', 'lower', 3, 2.5)])]) },
    };
    const table = renderCompare(drift);
    expect(table).toContain('| get req/s | 1,000 u | 0.80× | 800 u | 0.80× | 0.80× (worse, one value) | 1× (same) |');
    expect(table).toContain('| get p99 | 2 u | 0.80× | 3 u | 1.20× | 1.50× (worse, one value) | 1.50× (worse, one value) |');
  });

  const runs = (label: string, better: Row['better'], values: number[], baselines?: number[]): Row => ({
    label,
    unit: 'u',
    better,
    value: summarize(values),
    ...(baselines === undefined ? {} : { baseline: { label: 'bare', value: summarize(baselines) } }),
  });
  const sitting = (before: Row[], now: Row[]): string =>
    renderCompare({ ...compare, before: { ...compare.before, results: results([figure('f', before)]) }, now: { ...compare.now, results: results([figure('f', now)]) } });

  it('calls a change worse or better in bold only when every run of one build lies beyond every run of the other', () => {
    const table = sitting(
      [runs('apply', 'lower', [3.3, 3.5, 4.4]), runs('p99', 'lower', [10, 11, 12]), runs('rate', 'higher', [100, 110, 120])],
      [runs('apply', 'lower', [3.9, 4.3, 4.3]), runs('p99', 'lower', [13, 14, 15]), runs('rate', 'higher', [130, 140, 150])],
    );
    expect(table).toContain('| apply | 3.50 u (3.30–4.40) | — | 4.30 u (3.90–4.30) | — | 1.23× (worse, runs overlap) | — |');
    expect(table).toContain('| p99 | 11 u (10–12) | — | 14 u (13–15) | — | 1.27× (**worse**) | — |');
    expect(table).toContain('| rate | 110 u (100–120) | — | 140 u (130–150) | — | 1.27× (better) | — |');
  });

  it('judges the change against the baselines on each run\'s ratio to the baseline run beside it', () => {
    // The machine slowed down between the builds' runs, and within each build run by run: the figure moved with its
    // baseline, so every run's ratio is 0.5 before and 0.6 now, though the figures' own ranges overlap.
    const table = sitting([runs('get', 'higher', [100, 90, 80], [200, 180, 160])], [runs('get', 'higher', [96, 84, 72], [160, 140, 120])]);
    expect(table).toContain('| get | 90 u (80–100) | 0.50× | 84 u (72–96) | 0.60× | 0.93× (worse, runs overlap) | 1.20× (better) |');
  });

  it('divides the ratio cells for the change against the baselines, though each run\'s ratio judges the overlap', () => {
    // per-run ratios 1/3, 2, 1.5 before (median 1.5) and 0.5, 1, 1.5 now (median 1); the ratio cells divide the
    // medians, 200 / 200 both: the change against the baselines is 1, not 1 / 1.5
    const table = sitting([runs('get', 'higher', [100, 200, 300], [300, 100, 200])], [runs('get', 'higher', [100, 200, 300], [200, 200, 200])]);
    expect(table).toContain('| get | 200 u (100–300) | 1× | 200 u (100–300) | 1× | 1× (same) | 1× (same) |');
  });

  it('compares growth curves point by point, each a single value', () => {
    const curve = (value: number) => [{ label: 'plan', axis: 'dashboards', growth: 1, points: [{ size: 1000, value, unit: 's', perItem: value / 1000, perItemUnit: 'ms' }] }];
    const table = renderCompare({
      ...compare,
      before: { ...compare.before, results: results([figure('g', [], { curves: curve(2) })]) },
      now: { ...compare.now, results: results([figure('g', [], { curves: curve(3) })]) },
    });
    expect(table).toContain('| plan | 1,000 dashboards | 2 s | 3 s | 1.50× (worse, one value) |');
  });

  it('says how often unchanged code reads "runs apart" with the sitting\'s number of runs', () => {
    expect(renderCompare(compare)).toContain('(with 3 runs each, unchanged code still reads so one time in 10)');
  });

  it('says "not in <sha>" for a figure the old commit lacks, and still shows today\'s value', () => {
    expect(renderCompare(compare)).toContain('| documents req/s | not in 6ad1603 | — | 300 u | 0.50× | — | — |');
  });

  it('lists the shims under the table', () => {
    expect(renderCompare(compare)).toContain('Shims over 6ad1603 (bench/lib/before-shims.ts):\n\n- server options: x');
  });
});

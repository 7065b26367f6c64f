import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeForCompare } from '../../../src/dashboards/normalize.js';
import { parsePointer, pointerProblem, pointerToPath } from '../../../src/plan/json-pointer.js';
import { CORPUS_DASHBOARDS_DIR } from '../../helpers/corpus.js';

const none = { ignore: [] };
const equal = (a: unknown, b: unknown, ignore: string[] = []): boolean =>
  JSON.stringify(normalizeForCompare(a, { ignore })) === JSON.stringify(normalizeForCompare(b, { ignore }));

const markdownTile = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  tileType: 'MARKDOWN',
  bounds: { top: 0, left: 0, width: 304, height: 38 },
  markdown: `# ${name}`,
  ...extra,
});

const base = () => ({
  dashboardMetadata: { name: 'Hosts', owner: 'ops', tags: ['b', 'a'] },
  tiles: [markdownTile('One'), markdownTile('Two')],
});

describe('normalizeForCompare', () => {
  it('treats key order as irrelevant at every depth', () => {
    const reordered = {
      tiles: [
        { markdown: '# One', bounds: { height: 38, width: 304, left: 0, top: 0 }, tileType: 'MARKDOWN', name: 'One' },
        { bounds: { top: 0, left: 0, width: 304, height: 38 }, markdown: '# Two', name: 'Two', tileType: 'MARKDOWN' },
      ],
      dashboardMetadata: { tags: ['b', 'a'], owner: 'ops', name: 'Hosts' },
    };
    expect(equal(base(), reordered)).toBe(true);
  });

  it('treats tags as a set: order and duplicates do not matter, content does', () => {
    const other = base();
    other.dashboardMetadata.tags = ['a', 'b', 'a'];
    expect(equal(base(), other)).toBe(true);
    other.dashboardMetadata.tags = ['a', 'c'];
    expect(equal(base(), other)).toBe(false);
  });

  it('drops the server-owned id, metadata, popularity and metricExpressions', () => {
    const live = {
      id: 'd6740373-ff26-4681-b95f-fd5b858c97f7',
      metadata: { configurationVersions: [4, 2], clusterVersion: '1.233.0.20211217-153056' },
      ...base(),
      dashboardMetadata: { ...base().dashboardMetadata, popularity: 7 },
    };
    expect(equal(live, base())).toBe(true);
  });

  it('treats explicit null and an absent member as equal', () => {
    const withNulls = base() as Record<string, unknown> & ReturnType<typeof base>;
    withNulls.tiles[0] = markdownTile('One', { tileFilter: { timeframe: null, managementZone: null }, nameSize: null });
    (withNulls.dashboardMetadata as Record<string, unknown>).dashboardFilter = { managementZone: null, timeframe: null };
    expect(equal(withNulls, base())).toBe(true);
  });

  it('fills the real service read-side defaults so a live dashboard carrying them equals a file without them', () => {
    const desired = {
      dashboardMetadata: { name: 'Svc', owner: 'ops' },
      tiles: [
        {
          name: 'Latency',
          tileType: 'DATA_EXPLORER',
          bounds: { top: 0, left: 0, width: 304, height: 304 },
          queries: [{ id: 'A', metric: 'builtin:service.response.time', spaceAggregation: 'AVG' }],
          visualConfig: { type: 'GRAPH_CHART', rules: [{ matcher: 'A:', properties: {} }], thresholds: [{ rules: [] }] },
        },
        { name: 'Sessions', tileType: 'DTAQL', bounds: { top: 0, left: 304, width: 304, height: 304 }, customName: 'Sessions', query: 'SELECT 1', type: 'TABLE' },
      ],
    };
    const live = {
      id: '5d7c0de3-1344-4216-a755-313000000000',
      metadata: { configurationVersions: [1], clusterVersion: '' },
      dashboardMetadata: { name: 'Svc', owner: 'ops', shared: false, preset: false, hasConsistentColors: false, tilesNameSize: 'medium', popularity: 1 },
      tiles: [
        {
          name: 'Latency',
          tileType: 'DATA_EXPLORER',
          configured: true,
          isAutoRefreshDisabled: false,
          nameSize: '',
          tileFilter: { timeframe: null, managementZone: null },
          bounds: { top: 0, left: 0, width: 304, height: 304 },
          customName: 'Latency',
          queries: [
            {
              id: 'A', metric: 'builtin:service.response.time', spaceAggregation: 'AVG', enabled: true, timeAggregation: 'DEFAULT',
              rate: 'NONE', splitBy: [], filterBy: { nestedFilters: [], criteria: [] },
            },
          ],
          queriesSettings: { resolution: '' },
          metricExpressions: ['resolution=null&(builtin:service.response.time)'],
          visualConfig: {
            type: 'GRAPH_CHART',
            rules: [{ matcher: 'A:', properties: { color: 'DEFAULT' }, seriesOverrides: [] }],
            thresholds: [{ rules: [], visible: true }],
            heatmapSettings: { yAxis: 'VALUE' },
            honeycombSettings: { showHive: true, showLegend: true },
          },
        },
        {
          name: 'Sessions', tileType: 'DTAQL', configured: true, isAutoRefreshDisabled: false, tileFilter: {},
          bounds: { top: 0, left: 304, width: 304, height: 304 }, customName: 'Sessions', query: 'SELECT 1', type: 'TABLE',
          visualizationConfig: { hasAxisBucketing: true },
        },
      ],
    };
    expect(normalizeForCompare(live, none)).toEqual(normalizeForCompare(desired, none));
  });

  it('ignores visualizationConfig on DTAQL pie charts and world maps, which the service does not keep', () => {
    const pie = (extra: object) => ({ name: 'p', tileType: 'DTAQL', bounds: {}, query: 'SELECT 1', type: 'PIE_CHART', ...extra });
    const map = (extra: object) => ({ name: 'm', tileType: 'APPLICATION_WORLDMAP', bounds: {}, metric: 'APDEX', ...extra });
    const file = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [pie({ visualizationConfig: { hasAxisBucketing: false } }), map({ visualizationConfig: {} })] };
    const live = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [pie({}), map({})] };
    expect(equal(file, live)).toBe(true);
    const table = (extra: object) => ({ ...pie(extra), type: 'TABLE' });
    const tables = (extra: object) => ({ dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [table(extra)] });
    expect(equal(tables({ visualizationConfig: { hasAxisBucketing: false } }), tables({}))).toBe(false);
  });

  it('still sees a member that differs from the default', () => {
    const a = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [markdownTile('One')] };
    const b = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [markdownTile('One', { isAutoRefreshDisabled: true })] };
    expect(equal(a, b)).toBe(false);
  });

  it('sorts Data Explorer filter criteria and nested filters, which the service does not keep in order', () => {
    const tile = (criteria: unknown[]) => ({
      name: 'q', tileType: 'DATA_EXPLORER', bounds: {}, visualConfig: { type: 'TABLE' },
      queries: [{ id: 'A', filterBy: { filterOperator: 'AND', nestedFilters: [{ filter: 'b', criteria }, { filter: 'a', criteria: [] }] } }],
    });
    const a = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [tile([{ value: '1', evaluator: 'EQ' }, { value: '2', evaluator: 'EQ' }])] };
    const b = { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [tile([{ evaluator: 'EQ', value: '2' }, { evaluator: 'EQ', value: '1' }])] };
    expect(equal(a, b)).toBe(true);
  });

  it('removes ignored pointers, with * matching any array index', () => {
    const moved = base();
    moved.tiles[1] = markdownTile('Two', { bounds: { top: 38, left: 0, width: 304, height: 38 } });
    expect(equal(base(), moved)).toBe(false);
    expect(equal(base(), moved, ['/tiles/*/bounds'])).toBe(true);
    expect(equal(base(), moved, ['/tiles/0/bounds'])).toBe(false);
    expect(equal(base(), moved, ['/tiles/1/bounds'])).toBe(true);
  });

  it('removes ignored pointers with * matching any object key', () => {
    const a = { dashboardMetadata: { name: 'x', owner: 'o', shared: true }, tiles: [] };
    const b = { dashboardMetadata: { name: 'x', owner: 'o', shared: false }, tiles: [] };
    expect(equal(a, b, ['/dashboardMetadata/shared'])).toBe(true);
    expect(equal(a, b, ['/*/shared'])).toBe(true);
    expect(equal(a, b, ['/dashboardMetadata/owner'])).toBe(false);
  });

  it('does not modify its input', () => {
    const input = base();
    const before = JSON.stringify(input);
    normalizeForCompare(input, { ignore: ['/tiles/*/bounds'] });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('is idempotent on every real dashboard in the corpus', () => {
    const dir = CORPUS_DASHBOARDS_DIR;
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) {
      const once = normalizeForCompare(JSON.parse(readFileSync(join(dir, file), 'utf8')), none);
      expect(normalizeForCompare(once, none), file).toEqual(once);
    }
  });
});

describe('normalizeForCompare on partial and odd bodies', () => {
  it('returns values that are not objects as they are', () => {
    expect(normalizeForCompare(null, none)).toBeNull();
    expect(normalizeForCompare('Hosts', none)).toBe('Hosts');
    expect(normalizeForCompare([{ b: 1, a: 2 }], none)).toEqual([{ b: 1, a: 2 }]);
  });

  it('normalises a body without dashboardMetadata or tiles, and tiles that are not objects, without throwing', () => {
    expect(normalizeForCompare({ id: 'x', metadata: { configurationVersions: [7] } }, none)).toEqual({});
    expect(normalizeForCompare({ dashboardMetadata: 'Hosts', tiles: 'none' }, none)).toEqual({ dashboardMetadata: 'Hosts', tiles: 'none' });
    expect(normalizeForCompare({ tiles: [null, 'MARKDOWN', 3] }, none)).toEqual({ tiles: [null, 'MARKDOWN', 3] });
  });

  it('never applies an ignore rule that is not a pointer (a jq-style ".tiles" removes nothing)', () => {
    const normalised = normalizeForCompare(base(), { ignore: ['.tiles', 'dashboardMetadata'] }) as Record<string, unknown>;
    expect(Object.keys(normalised)).toEqual(['dashboardMetadata', 'tiles']);
    expect((normalised['tiles'] as unknown[]).length).toBe(2);
  });
});

describe('JSON Pointers', () => {
  it('renders pointers as dotted paths and unescapes ~1 and ~0', () => {
    expect(pointerToPath('/tiles/3/name')).toBe('tiles[3].name');
    expect(pointerToPath('/dashboardMetadata/tags/1')).toBe('dashboardMetadata.tags[1]');
    expect(pointerToPath('/tiles/0/filterConfig/filtersPerEntityType/a~1b~0c')).toBe('tiles[0].filterConfig.filtersPerEntityType["a/b~c"]');
    expect(parsePointer('/a~01')).toEqual(['a~1']);
  });

  it('reports pointers that are not usable ignore rules', () => {
    expect(pointerProblem('/tiles/*/bounds')).toBeUndefined();
    expect(pointerProblem('tiles/bounds')).toMatch(/start with "\/"/);
    expect(pointerProblem('/a~2')).toMatch(/~/);
    expect(pointerProblem('')).toMatch(/whole dashboard/);
  });
});

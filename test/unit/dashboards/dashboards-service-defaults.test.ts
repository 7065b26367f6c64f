import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/plan/json-value.js';
import { fillServiceDefaults, sortSetMembers } from '../../../src/dashboards/service-defaults.js';

/*
 * Each expectation is a literal: what the real service returns on GET for what was PUT
 * (docs/real-service-behaviour.md §2.3, the Terraform provider's comparison defaults), on tiles copied from real
 * exports in the corpus. Never computed by the module under test.
 */

function filled(dashboard: JsonObject): JsonObject {
  fillServiceDefaults(dashboard);
  return dashboard;
}

function sorted(dashboard: JsonObject): JsonObject {
  sortSetMembers(dashboard);
  return dashboard;
}

const withTiles = (...tiles: JsonObject[]): JsonObject => ({ tiles });

/** Real tiles (corpus file named beside each), as exported. */
const corpus = {
  /** mauney-automation__dashboard_template.json */
  worldMap: (): JsonObject => ({
    name: 'World map', tileType: 'APPLICATION_WORLDMAP', configured: true, bounds: { top: 912, left: 912, width: 304, height: 304 },
    tileFilter: { timeframe: null, managementZone: null }, assignedEntities: [], metric: 'APDEX',
  }),
  /** mauney-automation__dashboard_template.json */
  dtaqlSingleValue: (): JsonObject => ({
    name: 'User Sessions Query', tileType: 'DTAQL', configured: true, bounds: { top: 2128, left: 0, width: 304, height: 304 },
    tileFilter: { timeframe: null, managementZone: null }, customName: 'User sessions query results',
    query: 'SELECT duration FROM usersession ', type: 'SINGLE_VALUE', limit: 50,
  }),
  /** keptn-dtsvc__usql_tiles-pie_chart_visualization-dashboard.json */
  dtaqlPie: (): JsonObject => ({
    name: 'User Sessions Query', nameSize: '', tileType: 'DTAQL', configured: true, bounds: { top: 494, left: 722, width: 304, height: 304 },
    tileFilter: {}, customName: 'User sessions query results;sli=usql_metric;pass=<=100',
    query: 'SELECT city, AVG(duration) FROM usersession GROUP BY city LIMIT 3', type: 'PIE_CHART', limit: 50,
  }),
  /** bullinger-dashboards__HTTP_Monitor_Overview.json (legendShown as exported: true) */
  syntheticTests: (legendShown?: boolean): JsonObject => ({
    name: '', tileType: 'SYNTHETIC_TESTS', configured: true, bounds: { top: 0, left: 0, width: 304, height: 152 }, tileFilter: {},
    filterConfig: {
      type: 'WEB_CHECK', customName: 'HTTP Monitor Health', defaultName: 'HTTP synthetic monitor',
      chartConfig: { ...(legendShown === undefined ? {} : { legendShown }), type: 'TIMESERIES', series: [], resultMetadata: {} },
      filtersPerEntityType: { WEB_CHECK: { WEBCHECK_TYPE: ['Basic HTTP'] } },
    },
    chartVisible: true,
  }),
};

describe('fillServiceDefaults: dashboard metadata', () => {
  it('fills shared, preset, hasConsistentColors and tilesNameSize ("Default value is medium") where absent', () => {
    // keptn-dtsvc__usql_tiles-pie_chart_visualization-dashboard.json
    expect(filled({ dashboardMetadata: { name: 'SLO tile dashboard', shared: false, owner: '' } })).toStrictEqual({
      dashboardMetadata: { name: 'SLO tile dashboard', shared: false, owner: '', preset: false, hasConsistentColors: false, tilesNameSize: 'medium' },
    });
  });

  it('keeps values that differ from the defaults', () => {
    const metadata = { name: 'x', owner: 'o', shared: true, preset: true, hasConsistentColors: true, tilesNameSize: 'small' };
    expect(filled({ dashboardMetadata: { ...metadata } })).toStrictEqual({ dashboardMetadata: metadata });
  });

  it('leaves a dashboard without metadata or tiles, and non-object tiles, as they are', () => {
    expect(filled({})).toStrictEqual({});
    expect(filled({ dashboardMetadata: 'x', tiles: 'y' })).toStrictEqual({ dashboardMetadata: 'x', tiles: 'y' });
    expect(filled({ tiles: [null, 3, 'MARKDOWN'] })).toStrictEqual({ tiles: [null, 3, 'MARKDOWN'] });
  });
});

describe('fillServiceDefaults: tiles', () => {
  it('fills configured and isAutoRefreshDisabled on every tile, keeping set values', () => {
    expect(filled(withTiles({ name: 'm', tileType: 'MARKDOWN', markdown: '# x' }, { tileType: 'HEADER', configured: false, isAutoRefreshDisabled: true }))).toStrictEqual(
      withTiles(
        { name: 'm', tileType: 'MARKDOWN', markdown: '# x', configured: true, isAutoRefreshDisabled: false },
        { tileType: 'HEADER', configured: false, isAutoRefreshDisabled: true },
      ),
    );
  });

  it('drops nameSize "" (real exports: "not set") and keeps every real nameSize', () => {
    const tiles = filled(withTiles(
      { tileType: 'HEADER', nameSize: '' },
      { tileType: 'HEADER', nameSize: 'small' },
      { tileType: 'HEADER', nameSize: 'medium' },
      { tileType: 'HEADER', nameSize: 'large' },
    )).tiles as JsonObject[];
    expect(tiles.map((tile) => tile.nameSize)).toStrictEqual([undefined, 'small', 'medium', 'large']);
    expect(Object.hasOwn(tiles[0]!, 'nameSize')).toBe(false);
  });

  it('removes visualizationConfig from a world map tile, which the service does not keep', () => {
    const tile = { ...corpus.worldMap(), visualizationConfig: { hasAxisBucketing: false } };
    expect(filled(withTiles(tile))).toStrictEqual(withTiles({ ...corpus.worldMap(), isAutoRefreshDisabled: false }));
  });

  it('fills a DTAQL tile: customName from name, query, type and hasAxisBucketing', () => {
    expect(filled(withTiles({ name: 'Sessions', tileType: 'DTAQL' }))).toStrictEqual(
      withTiles({
        name: 'Sessions', tileType: 'DTAQL', configured: true, isAutoRefreshDisabled: false, customName: 'Sessions', query: '',
        type: 'NOT_CONFIGURED', visualizationConfig: { hasAxisBucketing: true },
      }),
    );
    expect(filled(withTiles(corpus.dtaqlSingleValue()))).toStrictEqual(
      withTiles({ ...corpus.dtaqlSingleValue(), isAutoRefreshDisabled: false, visualizationConfig: { hasAxisBucketing: true } }),
    );
  });

  it('keeps a DTAQL tile\'s own visualizationConfig values and does not invent a customName without a name', () => {
    expect(filled(withTiles({ tileType: 'DTAQL', query: 'SELECT 1', type: 'TABLE', visualizationConfig: { hasAxisBucketing: false } }))).toStrictEqual(
      withTiles({ tileType: 'DTAQL', query: 'SELECT 1', type: 'TABLE', visualizationConfig: { hasAxisBucketing: false }, configured: true, isAutoRefreshDisabled: false }),
    );
    expect(filled(withTiles({ tileType: 'DTAQL', type: 'TABLE', visualizationConfig: 'kept' })).tiles).toStrictEqual([
      { tileType: 'DTAQL', type: 'TABLE', visualizationConfig: 'kept', configured: true, isAutoRefreshDisabled: false, query: '' },
    ]);
  });

  it('removes visualizationConfig from a DTAQL pie chart and drops its nameSize ""', () => {
    const { nameSize: _empty, ...exported } = corpus.dtaqlPie();
    expect(filled(withTiles({ ...corpus.dtaqlPie(), visualizationConfig: { hasAxisBucketing: true } }))).toStrictEqual(
      withTiles({ ...exported, isAutoRefreshDisabled: false }),
    );
  });

  it('leaves visualizationConfig of other tile types alone', () => {
    const custom = { name: 'c', tileType: 'CUSTOM_CHARTING', configured: true, isAutoRefreshDisabled: false, visualizationConfig: { anything: 1 } };
    expect(filled(withTiles({ ...custom }))).toStrictEqual(withTiles(custom));
    // Only a DTAQL pie chart loses it: another tile type that says PIE_CHART keeps it.
    const pie = { name: 'p', tileType: 'CUSTOM_CHARTING', type: 'PIE_CHART', configured: true, isAutoRefreshDisabled: false, visualizationConfig: { anything: 1 } };
    expect(filled(withTiles({ ...pie }))).toStrictEqual(withTiles(pie));
  });

  it('fills a Data Explorer tile: customName, queriesSettings.resolution and each query\'s enabled, timeAggregation, rate', () => {
    const tile = { name: 'Latency', tileType: 'DATA_EXPLORER', queries: [{ id: 'A', metric: 'builtin:service.response.time' }, 'not a query'] };
    expect(filled(withTiles(tile))).toStrictEqual(
      withTiles({
        name: 'Latency', tileType: 'DATA_EXPLORER', configured: true, isAutoRefreshDisabled: false, customName: 'Latency',
        queriesSettings: { resolution: '' },
        queries: [{ id: 'A', metric: 'builtin:service.response.time', enabled: true, timeAggregation: 'DEFAULT', rate: 'NONE' }, 'not a query'],
      }),
    );
  });

  it('keeps a Data Explorer tile\'s own query settings and leaves a non-object queriesSettings alone', () => {
    const query = { id: 'A', enabled: false, timeAggregation: 'AVG', rate: 'PER_SECOND' };
    const tile = { name: 'n', tileType: 'DATA_EXPLORER', customName: 'own', queriesSettings: { resolution: '1m' }, queries: [query] };
    expect(filled(withTiles(structuredClone(tile)))).toStrictEqual(withTiles({ ...tile, configured: true, isAutoRefreshDisabled: false }));
    expect((filled(withTiles({ tileType: 'DATA_EXPLORER', queriesSettings: 'x' })).tiles as JsonObject[])[0]!.queriesSettings).toBe('x');
  });

  it('gives other tile types neither customName, query defaults nor queriesSettings', () => {
    expect(filled(withTiles({ name: 'h', tileType: 'HEADER', queries: [{ id: 'A' }] }))).toStrictEqual(
      withTiles({ name: 'h', tileType: 'HEADER', queries: [{ id: 'A' }], configured: true, isAutoRefreshDisabled: false }),
    );
  });

  it('fills legendShown in a chart\'s filterConfig (bullinger HTTP monitor tile) and keeps an explicit false', () => {
    expect(filled(withTiles(corpus.syntheticTests()))).toStrictEqual(withTiles({ ...corpus.syntheticTests(true), isAutoRefreshDisabled: false }));
    expect(filled(withTiles(corpus.syntheticTests(false)))).toStrictEqual(withTiles({ ...corpus.syntheticTests(false), isAutoRefreshDisabled: false }));
  });

  it('fills visualConfig: heatmap y axis, honeycomb hive and legend, rule colours, threshold visibility', () => {
    const visualConfig: JsonObject = { type: 'GRAPH_CHART', rules: [{ matcher: 'A:', properties: {} }, { matcher: 'B:' }, 'x'], thresholds: [{ rules: [] }, { visible: false }] };
    expect((filled(withTiles({ tileType: 'DATA_EXPLORER', visualConfig })).tiles as JsonObject[])[0]!.visualConfig).toStrictEqual({
      type: 'GRAPH_CHART',
      rules: [{ matcher: 'A:', properties: { color: 'DEFAULT' } }, { matcher: 'B:', properties: { color: 'DEFAULT' } }, 'x'],
      thresholds: [{ rules: [], visible: true }, { visible: false }],
      heatmapSettings: { yAxis: 'VALUE' },
      honeycombSettings: { showHive: true, showLegend: true },
    });
  });

  it('keeps set visualConfig values and members that are not objects', () => {
    const visualConfig = {
      heatmapSettings: { yAxis: 'DATA_POINTS' }, honeycombSettings: { showHive: false, showLegend: false },
      rules: [{ properties: { color: '#ff0000' } }, { properties: 'x' }],
    };
    expect((filled(withTiles({ tileType: 'DATA_EXPLORER', visualConfig: structuredClone(visualConfig) })).tiles as JsonObject[])[0]!.visualConfig).toStrictEqual(visualConfig);
    const odd = { heatmapSettings: 'x', honeycombSettings: 1 };
    expect((filled(withTiles({ tileType: 'DATA_EXPLORER', visualConfig: { ...odd } })).tiles as JsonObject[])[0]!.visualConfig).toStrictEqual(odd);
  });
});

describe('sortSetMembers', () => {
  it('sorts and de-duplicates tags, dynamic filters and generic tag filters\' entity types by code unit', () => {
    const dashboard = {
      dashboardMetadata: {
        tags: ['team:b', 'Zeta', 'team:a', 'team:b'],
        dynamicFilters: { filters: ['SERVICE_TYPE', 'HOST_TAG_KEY:env', 'SERVICE_TYPE'], genericTagFilters: [{ name: 'g', entityTypes: ['SERVICE', 'HOST'] }, 'x'] },
      },
    };
    expect(sorted(dashboard)).toStrictEqual({
      dashboardMetadata: {
        tags: ['Zeta', 'team:a', 'team:b'],
        dynamicFilters: { filters: ['HOST_TAG_KEY:env', 'SERVICE_TYPE'], genericTagFilters: [{ name: 'g', entityTypes: ['HOST', 'SERVICE'] }, 'x'] },
      },
    });
  });

  it('leaves a tag list that is not all strings as it is', () => {
    expect(sorted({ dashboardMetadata: { tags: ['b', 1, 'a'] } })).toStrictEqual({ dashboardMetadata: { tags: ['b', 1, 'a'] } });
    // Not de-duplicated either: only a list of strings is a set.
    expect(sorted({ dashboardMetadata: { tags: ['b', 1, 'b'] } })).toStrictEqual({ dashboardMetadata: { tags: ['b', 1, 'b'] } });
    expect(sorted({ dashboardMetadata: { tags: [2, 1, 2] } })).toStrictEqual({ dashboardMetadata: { tags: [2, 1, 2] } });
  });

  it('sorts Data Explorer filter criteria and nested filters at every depth by their canonical JSON', () => {
    const filterBy: JsonObject = {
      filterOperator: 'AND',
      criteria: [{ value: 'b', evaluator: 'EQ' }, { value: 'a', evaluator: 'EQ' }],
      nestedFilters: [
        { filter: 'dt.entity.host', criteria: [{ value: 'HOST-2', evaluator: 'IN' }, { value: 'HOST-1', evaluator: 'IN' }] },
        { filter: 'dt.entity.service', criteria: [], nestedFilters: [{ filter: 'z' }, { filter: 'y' }] },
      ],
    };
    expect(sorted(withTiles({ tileType: 'DATA_EXPLORER', queries: [{ id: 'A', filterBy }, { id: 'B' }] }))).toStrictEqual(
      withTiles({
        tileType: 'DATA_EXPLORER',
        queries: [
          {
            id: 'A',
            filterBy: {
              filterOperator: 'AND',
              criteria: [{ value: 'a', evaluator: 'EQ' }, { value: 'b', evaluator: 'EQ' }],
              // Canonical JSON order: {"criteria":[],...} before {"criteria":[{...}],...}.
              nestedFilters: [
                { filter: 'dt.entity.service', criteria: [], nestedFilters: [{ filter: 'y' }, { filter: 'z' }] },
                { filter: 'dt.entity.host', criteria: [{ value: 'HOST-1', evaluator: 'IN' }, { value: 'HOST-2', evaluator: 'IN' }] },
              ],
            },
          },
          { id: 'B' },
        ],
      }),
    );
  });
});

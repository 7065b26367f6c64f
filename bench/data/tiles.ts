import type { Rng } from '../lib/rng.js';

/** Plain JSON as dashboard files and API bodies carry it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Bounds {
  top: number;
  left: number;
  width: number;
  height: number;
}

const METRICS = [
  'builtin:host.cpu.usage',
  'builtin:host.mem.usage',
  'builtin:host.disk.avail',
  'builtin:service.response.time',
  'builtin:service.errors.total.rate',
  'builtin:service.requestCount.total',
  'builtin:apps.web.actionDuration.load.browser',
  'builtin:synthetic.http.availability.location.total',
  'builtin:containers.cpu.usageMilliCores',
  'builtin:cloud.aws.lambda.errors',
  'ext:cloud.aws.sqs.approximateNumberOfMessagesVisibleByAccountIdQueueName',
  'calc:service.checkout_latency_p90',
] as const;
const SPLITS = ['dt.entity.host', 'dt.entity.service', 'dt.entity.process_group', 'aws.region', 'k8s.namespace.name'];
const CHART_TYPES = ['GRAPH_CHART', 'SINGLE_VALUE', 'TABLE', 'TOP_LIST', 'HONEYCOMB', 'PIE_CHART'] as const;
const TIMEFRAMES = ['-2h', '-24h', '-7d', 'today', 'l_72_HOURS'] as const;
const WORDS = ['checkout', 'payments', 'search', 'catalog', 'auth', 'ledger', 'billing', 'gateway', 'orders', 'inventory'];

function tileFilter(rng: Rng): JsonObject {
  return rng.chance(0.7) ? {} : { timeframe: rng.pick(TIMEFRAMES) };
}

function common(rng: Rng, tileType: string, name: string, bounds: Bounds): JsonObject {
  return { name, nameSize: rng.pick(['', 'small', 'medium']), tileType, configured: true, bounds: { ...bounds }, tileFilter: tileFilter(rng), isAutoRefreshDisabled: false };
}

function explorerQuery(rng: Rng, id: string): JsonObject {
  const metric = rng.pick(METRICS);
  const split = rng.pick(SPLITS);
  return {
    id,
    metric,
    spaceAggregation: rng.pick(['AUTO', 'AVG', 'MAX', 'SUM']),
    timeAggregation: 'DEFAULT',
    splitBy: [split],
    sortBy: 'DESC',
    sortByDimension: '',
    filterBy: {
      filterOperator: 'AND',
      nestedFilters: rng.chance(0.5)
        ? [{ filter: split, filterType: 'ENTITY_ATTRIBUTE', entityAttribute: 'entityName', nestedFilters: [], criteria: [{ value: rng.pick(WORDS), evaluator: 'IN' }] }]
        : [],
      criteria: [],
    },
    limit: rng.pick([10, 20, 100]),
    rate: 'NONE',
    enabled: true,
  };
}

function visualConfig(rng: Rng, ids: readonly string[]): JsonObject {
  return {
    type: rng.pick(CHART_TYPES),
    global: { hideLegend: rng.chance(0.3) },
    rules: ids.map((id) => ({ matcher: `${id}:`, properties: { color: 'DEFAULT', seriesType: 'LINE' }, seriesOverrides: [] })),
    axes: {
      xAxis: { displayName: '', visible: true },
      yAxes: [{ displayName: '', visible: true, min: 'AUTO', max: 'AUTO', position: 'LEFT', queryIds: [...ids], defaultAxis: true }],
    },
    heatmapSettings: { yAxis: 'VALUE', showLabels: false },
    thresholds: [{ axisTarget: 'LEFT', rules: [{ value: rng.int(50, 80), color: '#7dc540' }, { value: rng.int(81, 95), color: '#f5d30f' }, { color: '#dc172a' }], visible: true }],
    tableSettings: { isThresholdBackgroundAppliedToCell: false, hiddenColumns: [] },
    graphChartSettings: { connectNulls: false },
    honeycombSettings: { showHive: true, showLegend: true, showLabels: false },
  };
}

export function dataExplorerTile(rng: Rng, bounds: Bounds): JsonObject {
  const ids = ['A', 'B'].slice(0, rng.int(1, 2));
  const queries = ids.map((id) => explorerQuery(rng, id));
  return {
    ...common(rng, 'DATA_EXPLORER', rng.chance(0.3) ? '' : `${rng.pick(WORDS)} ${rng.pick(['latency', 'errors', 'throughput', 'saturation'])}`, bounds),
    customName: 'Data explorer results',
    queries,
    visualConfig: visualConfig(rng, ids),
    queriesSettings: { resolution: '', foldTransformation: 'TOTAL', foldAggregation: 'AVG' },
    metricExpressions: queries.map((q) => `resolution=null&(${String(q['metric'])}:splitBy("${SPLITS[0]}"):sort(value(auto,descending)):limit(20)):limit(100):names`),
  };
}

export function customChartingTile(rng: Rng, bounds: Bounds): JsonObject {
  return {
    ...common(rng, 'CUSTOM_CHARTING', '', bounds),
    filterConfig: {
      type: 'MIXED',
      customName: `${rng.pick(WORDS)} response time`,
      defaultName: 'Custom chart',
      chartConfig: {
        legendShown: true,
        type: 'TIMESERIES',
        series: [{ metric: 'builtin:service.response.time', aggregation: 'AVG', type: 'LINE', entityType: 'SERVICE', dimensions: [{ id: '0', name: 'dt.entity.service', values: [], entityDimension: true }], sortAscending: false, sortColumn: true, aggregationRate: 'TOTAL' }],
        resultMetadata: {},
      },
      filtersPerEntityType: { SERVICE: { SPECIFIC_ENTITIES: [`SERVICE-${rng.hex(16)}`] } },
    },
  };
}

export function markdownTile(rng: Rng, bounds: Bounds): JsonObject {
  const service = rng.pick(WORDS);
  return {
    ...common(rng, 'MARKDOWN', 'Markdown', bounds),
    markdown: `## ${service} runbook\n\n- On-call: #team-${service}\n- [Service overview](#newservices;id=SERVICE-${rng.hex(16)})\n- Escalate after 15 minutes of **SLO burn**.`,
  };
}

export function headerTile(rng: Rng, bounds: Bounds): JsonObject {
  return { ...common(rng, 'HEADER', rng.pick(['Overview', 'Latency', 'Errors', 'Capacity', 'Availability']), bounds) };
}

export function entityListTile(rng: Rng, bounds: Bounds): JsonObject {
  const tileType = rng.pick(['HOSTS', 'SERVICES', 'APPLICATIONS', 'DATABASES_OVERVIEW']);
  return { ...common(rng, tileType, `${tileType.toLowerCase()} health`, bounds), chartVisible: true, filterConfig: null };
}

export function sloTile(rng: Rng, bounds: Bounds): JsonObject {
  return {
    ...common(rng, 'SLO', 'Service-level objective', bounds),
    assignedEntities: [rng.uuid()],
    metric: `METRICS=true;LEGEND=true;PROBLEMS=true;decimals=2;customTitle=${rng.pick(WORDS)} availability;`,
  };
}

export function problemsTile(rng: Rng, bounds: Bounds): JsonObject {
  return { ...common(rng, 'OPEN_PROBLEMS', 'Problems', bounds) };
}

export function userSessionQueryTile(rng: Rng, bounds: Bounds): JsonObject {
  return {
    ...common(rng, 'DTAQL', 'User Sessions Query', bounds),
    customName: 'User sessions query results',
    query: `SELECT count(*), AVG(duration) FROM usersession WHERE useraction.application = "${rng.pick(WORDS)}" GROUP BY city`,
    type: rng.pick(['TABLE', 'LINE_CHART', 'COLUMN_CHART', 'PIE_CHART']),
    limit: 50,
  };
}

export function httpMonitorTile(rng: Rng, bounds: Bounds): JsonObject {
  return { ...common(rng, 'SYNTHETIC_HTTP_MONITOR', 'HTTP monitor', bounds), assignedEntities: [`HTTP_CHECK-${rng.hex(16)}`] };
}

import type { Rng } from '../lib/rng.js';
import type { JsonObject } from './tiles.js';

/**
 * Tiles of the platform Dashboards app as the corpus has them (/work/shared/corpus/documents): `data` tiles with a
 * DQL query, the app's `davis` and `querySettings` defaults and a `visualizationSettings` shaped by the
 * visualization; markdown, code and annotation tiles. Variables are referenced as the apps write them (`$Service`).
 */

export const SERVICES = ['checkout', 'payments', 'search', 'catalog', 'auth', 'ledger', 'billing', 'gateway', 'orders', 'inventory'];
const VISUALIZATIONS = ['singleValue', 'singleValue', 'lineChart', 'table', 'categoricalBarChart', 'barChart', 'pieChart', 'areaChart', 'donutChart', 'honeycomb'] as const;
const METRICS = ['dt.service.request.response_time', 'dt.service.request.count', 'dt.service.request.failure_count', 'dt.host.cpu.usage', 'dt.host.memory.usage', 'dt.kubernetes.container.restarts'];
const LOG_LEVELS = ['ERROR', 'WARN', 'INFO'];

/** One of the query shapes the corpus repeats: a timeseries, a log count by field, an events table. */
function dql(rng: Rng, by: string): string {
  const service = rng.pick(SERVICES);
  switch (rng.int(0, 2)) {
    case 0:
      return `timeseries avg = avg(${rng.pick(METRICS)}), by: {${by}}\n, filter: { in(entityName(dt.entity.service), $Service) }\n| fieldsAdd name = entityName(dt.entity.service)\n| sort arrayAvg(avg) desc\n| limit ${rng.pick([5, 10, 20])}`;
    case 1:
      return `fetch logs\n| filter dt.entity.service == "${service}" and in(k8s.namespace.name, $Namespace)\n| filter loglevel == "${rng.pick(LOG_LEVELS)}"\n| summarize count = count(), by: {${by}}\n| sort count desc`;
    default:
      return `fetch events, from: now() - ${rng.pick(['2h', '24h', '7d'])}\n| filter event.kind == "DAVIS_EVENT" and event.status == "ACTIVE"\n| filter in(affected_entity_ids, $Service)\n| fields timestamp, event.name, event.category, ${by}\n| sort timestamp desc`;
  }
}

function thresholds(rng: Rng): JsonObject[] {
  if (rng.chance(0.6)) return [];
  return [{ id: 1, field: 'count', title: '', isEnabled: true, rules: [{ id: 0, color: { Default: 'var(--dt-colors-charts-status-ideal-default, #2f6863)' }, comparator: '≥', value: 0 }, { id: 1, color: { Default: 'var(--dt-colors-charts-status-warning-default, #eea53c)' }, comparator: '≥', value: rng.int(50, 200) }, { id: 2, color: { Default: 'var(--dt-colors-charts-status-critical-default, #c4233b)' }, comparator: '≥', value: rng.int(201, 900) }] }];
}

function chartSettings(rng: Rng, by: string): JsonObject {
  return {
    gapPolicy: rng.pick(['connect', 'gap']),
    circleChartSettings: { groupingThresholdType: 'relative', groupingThresholdValue: 0, valueType: 'relative' },
    categoryOverrides: {},
    categoricalBarChartSettings: { categoryAxis: [by], categoryAxisLabel: by, valueAxis: ['count'], valueAxisLabel: 'count', tooltipVariant: 'single' },
    fieldMapping: { timestamp: 'timeframe', leftAxisValues: ['avg'], leftAxisDimensions: [by], fields: [], values: [] },
    legend: { hidden: rng.chance(0.3), position: 'auto' },
    truncationMode: 'middle',
    hiddenLegendFields: [],
  };
}

/** `visualizationSettings` as the app saves them: every visualization's defaults, its own filled in. */
function visualizationSettings(rng: Rng, visualization: string, by: string): JsonObject {
  return {
    thresholds: thresholds(rng),
    chartSettings: chartSettings(rng, by),
    singleValue: { showLabel: visualization === 'singleValue', label: '', prefixIcon: rng.pick(['', 'ActionIcon', 'CriticalIcon']), recordField: 'count', autoscale: true, alignment: 'center', trend: { trendType: 'auto', isVisible: rng.chance(0.5) }, colorThresholdTarget: 'value' },
    table: { rowDensity: 'condensed', enableSparklines: false, hiddenColumns: [], lineWrapIds: [], columnWidths: {}, columnTypeOverrides: [] },
    honeycomb: { shape: 'hexagon', legend: { hidden: false, position: 'auto' }, displayedFields: [by], dataMappings: { value: 'count' }, truncationMode: 'middle', colorMode: 'color-palette', colorPalette: 'blue' },
    histogram: { dataMappings: [], variant: 'single', truncationMode: 'middle', legend: { hidden: false, position: 'auto' } },
    unitsOverrides: rng.chance(0.3) ? [{ identifier: 'avg', unitCategory: 'time', baseUnit: 'microsecond', displayUnit: null, decimals: 1, suffix: '', delimiter: false, added: 1_726_836_121_804 + rng.int(0, 1e6) }] : [],
    autoSelectVisualization: false,
  };
}

export function dataTile(rng: Rng): JsonObject {
  const by = rng.pick(['dt.entity.service', 'k8s.namespace.name', 'host.name', 'event.category', 'loglevel']);
  const visualization = rng.pick(VISUALIZATIONS);
  const tile: JsonObject = {
    type: 'data',
    title: `${rng.pick(SERVICES)} ${rng.pick(['latency', 'errors', 'throughput', 'saturation', 'restarts'])}`,
    query: dql(rng, by),
    visualization,
    visualizationSettings: visualizationSettings(rng, visualization, by),
    querySettings: { maxResultRecords: 1000, defaultScanLimitGbytes: 500, maxResultMegaBytes: 1, defaultSamplingRatio: 10, enableSampling: false },
    davis: { enabled: false, davisVisualization: { isAvailable: true } },
  };
  if (rng.chance(0.15)) tile['timeframe'] = { tileTimeframe: { from: `now()-${rng.pick(['2h', '24h', '7d'])}`, to: 'now()' }, tileTimeframeEnabled: true };
  return tile;
}

export function markdownTile(rng: Rng): JsonObject {
  const service = rng.pick(SERVICES);
  return { type: 'markdown', content: `## ${service}\n\nOn-call: #team-${service}. [Runbook](https://wiki.example.com/${service}/runbook) · escalate after 15 minutes of **SLO burn**.` };
}

export function codeTile(rng: Rng): JsonObject {
  return {
    type: 'code',
    title: `${rng.pick(SERVICES)} deployments`,
    input: `export default async function () {\n  const response = await fetch("https://deploy.example.com/api/releases?service=${rng.pick(SERVICES)}");\n  return (await response.json()).releases.slice(0, ${rng.int(5, 20)});\n}`,
    visualization: 'table',
    visualizationSettings: { table: { rowDensity: 'condensed', hiddenColumns: [] }, thresholds: [] },
  };
}

export function annotationTile(rng: Rng): JsonObject {
  return { type: 'annotation', title: '', content: `Numbers exclude synthetic traffic (tag \`synthetic:${rng.pick(['true', 'load-test'])}\`).` };
}

/** A dashboard's variables: the service and namespace every query filters by, sometimes a text threshold. */
export function variables(rng: Rng): JsonObject[] {
  const out: JsonObject[] = [
    { key: 'Service', type: 'query', visible: true, version: 2, editable: true, input: 'fetch dt.entity.service\n| fields entity.name\n| sort entity.name', multiple: true, defaultValue: [rng.pick(SERVICES)] },
    { key: 'Namespace', type: 'query', visible: true, version: 2, editable: true, input: 'fetch dt.entity.cloud_application_namespace\n| fields entity.name', multiple: true, defaultValue: [] },
  ];
  if (rng.chance(0.5)) out.push({ key: 'Threshold', type: 'text', visible: true, version: 2, editable: true, defaultValue: String(rng.int(100, 900)) });
  return out;
}

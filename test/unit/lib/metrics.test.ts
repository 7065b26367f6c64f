import { describe, expect, it } from 'vitest';
import { labelledMetrics, MetricsRegistry } from '../../../src/lib/metrics.js';
import { metricValue, parsePrometheus } from '../../helpers/daemon.js';

describe('the metrics registry', () => {
  it('renders counters, gauges and histograms in the Prometheus text format, with HELP and TYPE before each family', () => {
    const registry = new MetricsRegistry();
    const writes = registry.counter('app_writes_total', 'Writes by action');
    const lag = registry.gauge('app_lag_seconds', 'Lag');
    const duration = registry.histogram('app_duration_seconds', 'Duration', [0.1, 1]);
    writes({ action: 'create' });
    writes({ action: 'create' });
    writes({ action: 'update' }, 3);
    lag(1.5);
    duration(0.05);
    duration(0.5);
    duration(7);

    const text = registry.render();
    expect(text.split('\n').slice(0, 4)).toEqual([
      '# HELP app_writes_total Writes by action',
      '# TYPE app_writes_total counter',
      'app_writes_total{action="create"} 2',
      'app_writes_total{action="update"} 3',
    ]);
    const samples = parsePrometheus(text);
    expect(metricValue(samples, 'app_lag_seconds')).toBe(1.5);
    expect(samples.filter((s) => s.name === 'app_duration_seconds_bucket').map((s) => [s.labels.le, s.value])).toEqual([
      ['0.1', 1],
      ['1', 2],
      ['+Inf', 3],
    ]);
    expect(metricValue(samples, 'app_duration_seconds_count')).toBe(3);
    expect(metricValue(samples, 'app_duration_seconds_sum')).toBeCloseTo(7.55);
  });

  it('shows every family from the start: a counter at 0 and an empty histogram with zero buckets', () => {
    const registry = new MetricsRegistry();
    registry.counter('app_failures_total', 'Failures');
    registry.histogram('app_duration_seconds', 'Duration', [1]);
    const samples = parsePrometheus(registry.render());
    expect(samples.map((s) => `${s.name}${s.labels.le ? `{le=${s.labels.le}}` : ''} ${s.value}`)).toEqual([
      'app_failures_total 0',
      'app_duration_seconds_bucket{le=1} 0',
      'app_duration_seconds_bucket{le=+Inf} 0',
      'app_duration_seconds_sum 0',
      'app_duration_seconds_count 0',
    ]);
  });

  it('escapes label values and help text, and writes infinities as +Inf', () => {
    const registry = new MetricsRegistry();
    registry.counter('app_events_total', 'Line one\nline two \\ end')({ file: 'dash "boards"\\a\nb.yaml' });
    registry.gauge('app_limit', 'Limit')(Number.POSITIVE_INFINITY);
    const text = registry.render();
    expect(text).toContain('# HELP app_events_total Line one\\nline two \\\\ end\n');
    expect(text).toContain('app_events_total{file="dash \\"boards\\"\\\\a\\nb.yaml"} 1\n');
    expect(text).toContain('app_limit +Inf\n');
    const samples = parsePrometheus(text);
    expect(samples[0]?.labels.file).toBe('dash "boards"\\a\nb.yaml');
  });

  it('keeps counters monotonic: negative or NaN increments are ignored', () => {
    const registry = new MetricsRegistry();
    const count = registry.counter('app_total', 'Total');
    count({}, 2);
    count({}, -5);
    count({}, Number.NaN);
    expect(metricValue(parsePrometheus(registry.render()), 'app_total')).toBe(2);
  });

  it('treats the same labels in another order as one series', () => {
    const registry = new MetricsRegistry();
    const count = registry.counter('app_total', 'Total');
    count({ a: '1', b: '2' });
    count({ b: '2', a: '1' });
    expect(parsePrometheus(registry.render())).toEqual([{ name: 'app_total', labels: { a: '1', b: '2' }, value: 2 }]);
  });

  it('runs beforeRender hooks at every scrape, for values that age between events', () => {
    const registry = new MetricsRegistry();
    const lag = registry.gauge('app_lag_seconds', 'Lag');
    let now = 10;
    registry.beforeRender(() => lag(now));
    expect(metricValue(parsePrometheus(registry.render()), 'app_lag_seconds')).toBe(10);
    now = 25;
    expect(metricValue(parsePrometheus(registry.render()), 'app_lag_seconds')).toBe(25);
  });

  it('labelledMetrics: scopes of one registry share each family, every series carrying its scope\'s labels', () => {
    const registry = new MetricsRegistry();
    const dev = labelledMetrics(registry, { env: 'dev' });
    const prod = labelledMetrics(registry, { env: 'prod' });
    dev.counter('app_total', 'Total')({ result: 'ok' });
    prod.counter('app_total', 'Total')({ result: 'ok' }, 2);
    dev.histogram('app_seconds', 'Seconds', [1])(0.5);
    prod.histogram('app_seconds', 'Seconds', [1])(2);
    prod.gauge('app_info', 'Info')(1, { revision: 'a' });
    prod.remove('app_info', {});
    const samples = parsePrometheus(registry.render());
    expect(metricValue(samples, 'app_total', { env: 'dev', result: 'ok' })).toBe(1);
    expect(metricValue(samples, 'app_total', { env: 'prod', result: 'ok' })).toBe(2);
    expect(metricValue(samples, 'app_seconds_count', { env: 'dev' })).toBe(1);
    expect(metricValue(samples, 'app_seconds_bucket', { env: 'prod', le: '1' })).toBe(0);
    expect(metricValue(samples, 'app_seconds_count', { env: 'prod' })).toBe(1);
    expect(samples.filter((s) => s.name === 'app_info' && s.labels.revision !== undefined)).toEqual([]);
    expect(labelledMetrics(registry, {})).toBe(registry);
  });

  it('labelledMetrics: no series lacks its scope\'s labels, not even the zeros shown before the first value', () => {
    const registry = new MetricsRegistry();
    for (const env of ['dev', 'prod']) {
      const scope = labelledMetrics(registry, { env });
      scope.counter('app_total', 'Total');
      scope.gauge('app_lag_seconds', 'Lag');
      scope.histogram('app_seconds', 'Seconds', [1]);
    }
    labelledMetrics(registry, { env: 'dev' }).counter('app_total', 'Total')({ result: 'ok' });
    const samples = parsePrometheus(registry.render());
    expect(samples.filter((s) => s.labels.env === undefined)).toEqual([]);
    expect(samples.filter((s) => s.name === 'app_total').map((s) => [s.labels, s.value])).toEqual([
      [{ env: 'dev', result: 'ok' }, 1],
      [{ env: 'prod' }, 0],
    ]);
    expect(metricValue(samples, 'app_lag_seconds', { env: 'dev' })).toBe(0);
    expect(metricValue(samples, 'app_seconds_count', { env: 'prod' })).toBe(0);
  });
});


/**
 * A minimal Prometheus registry: counters, gauges and histograms with labels, rendered in the text exposition
 * format (version 0.0.4). Enough for one process's status endpoint without a dependency.
 */
type Labels = Readonly<Record<string, string>>;

interface Series {
  labels: Labels;
  value: number;
}

interface HistogramSeries {
  labels: Labels;
  bounds: readonly number[];
  buckets: number[];
  sum: number;
  count: number;
  /** A registering scope's own series: shown with zeros before the first observation. */
  scope: boolean;
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MetricsRegistry {
  private readonly help = new Map<string, { type: 'counter' | 'gauge' | 'histogram'; help: string }>();
  private readonly series = new Map<string, Map<string, Series>>();
  private readonly histograms = new Map<string, Map<string, HistogramSeries>>();
  /** Per counter or gauge, the labels of the scopes that registered it: each shows a zero until it has a series. */
  private readonly zeros = new Map<string, Map<string, Labels>>();
  private readonly collectors: (() => void)[] = [];

  /** Runs `collect` before every render: for values computed at scrape time (ages, lags). */
  beforeRender(collect: () => void): void {
    this.collectors.push(collect);
  }

  /** `scope`: the labels of the scope registering it (labelledMetrics), shown on its zero before the first increment. */
  counter(name: string, help: string, scope: Labels = {}): (labels?: Labels, by?: number) => void {
    this.register(name, { type: 'counter', help }, scope);
    return (labels = {}, by = 1) => {
      // A counter only goes up; a negative or NaN increment would break rate() for every scraper.
      if (!(by >= 0)) return;
      this.entry(name, labels).value += by;
    };
  }

  gauge(name: string, help: string, scope: Labels = {}): (value: number, labels?: Labels) => void {
    this.register(name, { type: 'gauge', help }, scope);
    return (value, labels = {}) => {
      this.entry(name, labels).value = value;
    };
  }

  /** Drops the series of `name` whose labels include `labels`: an info metric's old value must not linger. */
  remove(name: string, labels: Labels): void {
    const byLabels = this.series.get(name);
    for (const [key, series] of byLabels ?? []) {
      if (includes(series.labels, labels)) byLabels?.delete(key);
    }
  }

  /** Buckets are cumulative (`le`: less than or equal), as the exposition format requires. */
  histogram(name: string, help: string, bounds: readonly number[] = DEFAULT_BUCKETS, scope: Labels = {}): (seconds: number, labels?: Labels) => void {
    this.help.set(name, { type: 'histogram', help });
    // Registering again (one scope per environment) shares the series, as counters and gauges do.
    const byLabels = this.histograms.get(name) ?? new Map<string, HistogramSeries>();
    this.histograms.set(name, byLabels);
    const seriesOf = (labels: Labels): HistogramSeries => {
      const key = labelKey(labels);
      const existing = byLabels.get(key);
      if (existing) return existing;
      const created = { labels, bounds, buckets: bounds.map(() => 0), sum: 0, count: 0, scope: labels === scope };
      byLabels.set(key, created);
      return created;
    };
    // The scope's series exists from the start, so a scrape before the first observation sees zeros, not nothing.
    seriesOf(scope);
    return (seconds, labels = {}) => {
      const entry = seriesOf(labels);
      bounds.forEach((bound, i) => {
        if (seconds <= bound) entry.buckets[i] = (entry.buckets[i] ?? 0) + 1;
      });
      entry.sum += seconds;
      entry.count += 1;
    };
  }

  render(): string {
    for (const collect of this.collectors) collect();
    const out: string[] = [];
    for (const [name, meta] of this.help) {
      out.push(`# HELP ${name} ${escapeHelp(meta.help)}`, `# TYPE ${name} ${meta.type}`);
      if (meta.type === 'histogram') out.push(...this.renderHistogram(name));
      else {
        const series = [...(this.series.get(name)?.values() ?? [])];
        for (const s of series) out.push(`${name}${fmt(s.labels)} ${value(s.value)}`);
        for (const zero of this.zeros.get(name)?.values() ?? []) {
          if (!series.some((s) => includes(s.labels, zero))) out.push(`${name}${fmt(zero)} 0`);
        }
      }
    }
    return `${out.join('\n')}\n`;
  }

  private renderHistogram(name: string): string[] {
    const out: string[] = [];
    for (const h of this.histograms.get(name)?.values() ?? []) {
      if (h.count === 0 && !h.scope) continue;
      h.bounds.forEach((bound, i) => out.push(`${name}_bucket${fmt({ ...h.labels, le: value(bound) })} ${h.buckets[i] ?? 0}`));
      out.push(`${name}_bucket${fmt({ ...h.labels, le: '+Inf' })} ${h.count}`);
      out.push(`${name}_sum${fmt(h.labels)} ${value(h.sum)}`, `${name}_count${fmt(h.labels)} ${h.count}`);
    }
    return out;
  }

  private register(name: string, meta: { type: 'counter' | 'gauge'; help: string }, scope: Labels): void {
    this.help.set(name, meta);
    const zeros = this.zeros.get(name) ?? new Map<string, Labels>();
    zeros.set(labelKey(scope), scope);
    this.zeros.set(name, zeros);
  }

  private entry(name: string, labels: Labels): Series {
    const byLabels = this.series.get(name) ?? new Map<string, Series>();
    this.series.set(name, byLabels);
    const key = labelKey(labels);
    const existing = byLabels.get(key);
    if (existing) return existing;
    const created = { labels, value: 0 };
    byLabels.set(key, created);
    return created;
  }
}

/** What a part of the process records into: the registry, or a view of it that labels every series. */
export type MetricsScope = Pick<MetricsRegistry, 'counter' | 'gauge' | 'histogram' | 'remove' | 'beforeRender'>;

/**
 * The registry with `base` labels on every series it records: the daemon's environments share one exposition, each
 * series labelled with its `env`. Without labels it is the registry itself, so a single target's series stay as they were.
 */
export function labelledMetrics(registry: MetricsRegistry, base: Labels): MetricsScope {
  if (Object.keys(base).length === 0) return registry;
  return {
    counter: (name, help) => {
      const add = registry.counter(name, help, base);
      return (labels = {}, by) => add({ ...base, ...labels }, by);
    },
    gauge: (name, help) => {
      const set = registry.gauge(name, help, base);
      return (value, labels = {}) => set(value, { ...base, ...labels });
    },
    histogram: (name, help, bounds) => {
      const observe = registry.histogram(name, help, bounds, base);
      return (seconds, labels = {}) => observe(seconds, { ...base, ...labels });
    },
    remove: (name, labels) => registry.remove(name, { ...base, ...labels }),
    beforeRender: (collect) => registry.beforeRender(collect),
  };
}

/** Whether `labels` carries every label of `part`. */
function includes(labels: Labels, part: Labels): boolean {
  return Object.entries(part).every(([k, v]) => labels[k] === v);
}

function labelKey(labels: Labels): string {
  return JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

/** Go's float formatting as the text format expects it: `+Inf`, `-Inf`, `NaN`. */
function value(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return '+Inf';
  if (n === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(n);
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function fmt(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  return `{${keys.map((k) => `${k}="${escape(labels[k] ?? '')}"`).join(',')}}`;
}

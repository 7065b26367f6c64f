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
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MetricsRegistry {
  private readonly help = new Map<string, { type: 'counter' | 'gauge' | 'histogram'; help: string }>();
  private readonly series = new Map<string, Map<string, Series>>();
  private readonly histograms = new Map<string, Map<string, HistogramSeries>>();

  counter(name: string, help: string): (labels?: Labels, by?: number) => void {
    this.help.set(name, { type: 'counter', help });
    return (labels = {}, by = 1) => {
      const entry = this.entry(name, labels);
      entry.value += by;
    };
  }

  gauge(name: string, help: string): (value: number, labels?: Labels) => void {
    this.help.set(name, { type: 'gauge', help });
    return (value, labels = {}) => {
      this.entry(name, labels).value = value;
    };
  }

  histogram(name: string, help: string, bounds: readonly number[] = DEFAULT_BUCKETS): (seconds: number, labels?: Labels) => void {
    this.help.set(name, { type: 'histogram', help });
    return (seconds, labels = {}) => {
      const byLabels = this.histograms.get(name) ?? new Map<string, HistogramSeries>();
      this.histograms.set(name, byLabels);
      const key = labelKey(labels);
      const entry = byLabels.get(key) ?? { labels, bounds, buckets: bounds.map(() => 0), sum: 0, count: 0 };
      byLabels.set(key, entry);
      bounds.forEach((bound, i) => {
        if (seconds <= bound) entry.buckets[i] = (entry.buckets[i] ?? 0) + 1;
      });
      entry.sum += seconds;
      entry.count += 1;
    };
  }

  render(): string {
    const out: string[] = [];
    for (const [name, meta] of this.help) {
      out.push(`# HELP ${name} ${meta.help}`, `# TYPE ${name} ${meta.type}`);
      if (meta.type === 'histogram') {
        for (const h of this.histograms.get(name)?.values() ?? []) {
          h.bounds.forEach((bound, i) => out.push(`${name}_bucket${fmt({ ...h.labels, le: String(bound) })} ${h.buckets[i] ?? 0}`));
          out.push(`${name}_bucket${fmt({ ...h.labels, le: '+Inf' })} ${h.count}`);
          out.push(`${name}_sum${fmt(h.labels)} ${h.sum}`, `${name}_count${fmt(h.labels)} ${h.count}`);
        }
        continue;
      }
      const series = this.series.get(name);
      if (!series || series.size === 0) out.push(`${name} 0`);
      else for (const s of series.values()) out.push(`${name}${fmt(s.labels)} ${s.value}`);
    }
    return `${out.join('\n')}\n`;
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

function labelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

function fmt(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  return `{${keys.map((k) => `${k}="${escape(labels[k] ?? '')}"`).join(',')}}`;
}

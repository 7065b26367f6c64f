/** A figure's repeated measurements: the median is the reported value, min–max shows the spread. */
export interface Sample {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

export function summarize(runs: readonly number[]): Sample {
  if (runs.length === 0) throw new Error('summarize: no runs');
  const sorted = [...runs].sort((a, b) => a - b);
  return { median: quantileSorted(sorted, 0.5), min: sorted[0] ?? 0, max: sorted[sorted.length - 1] ?? 0, runs: [...runs] };
}

/** Linear interpolation between closest ranks over an ascending array. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? 0;
  return a + (b - a) * (pos - lo);
}

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Sorts in place (callers hand over a scratch array). */
export function summarizeLatencies(values: Float64Array): LatencySummary {
  values.sort();
  let sum = 0;
  for (const v of values) sum += v;
  return {
    count: values.length,
    mean: values.length === 0 ? Number.NaN : sum / values.length,
    p50: quantileSorted(values, 0.5),
    p90: quantileSorted(values, 0.9),
    p99: quantileSorted(values, 0.99),
    max: values.length === 0 ? Number.NaN : (values[values.length - 1] ?? Number.NaN),
  };
}

/** A growable Float64Array: load runs record tens of thousands of latencies without boxing them. */
export class SampleBuffer {
  private data = new Float64Array(1024);
  private size = 0;

  push(value: number): void {
    if (this.size === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.size++] = value;
  }

  get length(): number {
    return this.size;
  }

  toArray(): Float64Array {
    return this.data.slice(0, this.size);
  }
}

import type { Sample } from './stats.js';

export type Better = 'higher' | 'lower';

export interface Goal {
  text: string;
  met: boolean;
  /**
   * An absolute bound in the row's unit: the report restates it as a ratio to the row's baseline of the same run,
   * which a busy machine moves less than the absolute figures.
   */
  limit?: number;
  /**
   * A bound on figure / baseline (a ceiling when lower is better, a floor when higher is): where a machine's speed
   * cancels out, the goal itself is a ratio, shown beside the absolute bound and always part of `met`.
   */
  ratio?: number;
}

/** One line of the table: a measured value, optionally beside a baseline from the same run and a goal. */
export interface Row {
  label: string;
  unit: string;
  better: Better;
  value: Sample;
  baseline?: { label: string; value: Sample };
  goal?: Goal;
  note?: string;
}

export interface CurvePoint {
  size: number;
  value: number;
  unit: string;
  /** `value / size`, in `perItemUnit`: flat across sizes means no hidden super-linear step. */
  perItem: number;
  perItemUnit: string;
}

export interface Curve {
  label: string;
  axis: string;
  points: CurvePoint[];
  /** perItem at the largest size over perItem at the next one: ≈1 is linear, ≈10 per decade is quadratic. */
  growth: number;
}

export interface FigureOutcome {
  rows: Row[];
  curves?: Curve[];
  /** Anything a reader needs to trust the rows: data sizes, checks performed, error counts. */
  details?: Record<string, unknown>;
}

export interface BenchSizes {
  /** Dashboards stored for GET/PUT, and the validate/plan/apply set. */
  dashboards: number;
  planCurve: readonly number[];
  /** The curve point the scale goal (no-op plan ≤ 4 s) is about. */
  planAtScale: number;
  /** Events behind the page and pull figures. */
  events: number;
  eventsCurve: readonly number[];
  pageSamples: number;
  baselinePageSamples: number;
  daemonEdits: number;
  /** Dashboards the daemon holds for its scale figure (RSS ≤ 400 MB, start-up to all live). */
  daemonAtScale: number;
}

/** What drives HTTP load for the get and put figures; recorded in the results. */
export type LoadGenerator = { kind: 'wrk'; version: string } | { kind: 'undici-worker'; why: string };

export interface FigureContext {
  smoke: boolean;
  loadGenerator: LoadGenerator;
  runs: number;
  warmups: number;
  loadDurationMs: number;
  seed: number;
  sizes: BenchSizes;
  /** A temp directory for this figure, removed afterwards unless --keep. */
  workDir: string;
  /** Node flags for the processes under measurement (`--cpu-prof` when profiling). */
  execArgv: readonly string[];
  progress(message: string): void;
  /**
   * A data set built once per bench run and shared by the figures that need it (the 1M-event store feeds the
   * page, pull and growth figures); `build` gets a fresh directory that lives until the run ends.
   */
  shared<T>(key: string, build: (dir: string) => Promise<T>): Promise<T>;
}

export interface Figure {
  name: string;
  title: string;
  /** The goal as the issue states it, shown even while the figure cannot be measured yet. */
  goal: string;
  /** Figures starting servers on the same shared data set name one lane: they never run at the same time. */
  lane?: string;
  run(ctx: FigureContext): Promise<FigureOutcome>;
}

export function ratio(value: Sample, baseline: Sample): number {
  return baseline.median === 0 ? Number.NaN : value.median / baseline.median;
}

export function curveFrom(label: string, axis: string, points: CurvePoint[]): Curve {
  const last = points[points.length - 1];
  const prev = points[points.length - 2];
  const growth = last && prev && prev.perItem > 0 ? last.perItem / prev.perItem : Number.NaN;
  return { label, axis, points, growth };
}

/** Thrown when the component a figure measures is not there yet: the figure is listed as not yet measured. */
export class NotMeasurableYet extends Error {
  override readonly name = 'NotMeasurableYet';
}

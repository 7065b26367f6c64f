import type { FigureContext } from './figure.js';
import { summarize, type Sample } from './stats.js';

export type Measurement = Record<string, number>;
export type Task = (run: number) => Promise<Measurement>;

/**
 * Runs each task `warmups` times (discarded), then `runs` times, interleaved so drift over the run (thermal,
 * page cache, other tenants) falls on the figure and its baseline alike; the order alternates every run.
 * Returns every metric the tasks report, summarized per task.
 */
export async function repeatTasks<N extends string>(
  ctx: FigureContext,
  tasks: Record<N, Task>,
): Promise<Record<N, Record<string, Sample>>> {
  const names = Object.keys(tasks) as N[];
  const collected = Object.fromEntries(names.map((n) => [n, {} as Record<string, number[]>])) as Record<N, Record<string, number[]>>;
  for (let i = 0; i < ctx.warmups; i++) {
    for (const name of names) await tasks[name](-1 - i);
  }
  for (let run = 0; run < ctx.runs; run++) {
    const order = run % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      ctx.progress(`${name} run ${run + 1}/${ctx.runs}`);
      const measurement = await tasks[name](run);
      const into: Record<string, number[]> = collected[name];
      for (const [key, value] of Object.entries(measurement)) (into[key] ??= []).push(value);
    }
  }
  const out = {} as Record<N, Record<string, Sample>>;
  for (const name of names) {
    out[name] = Object.fromEntries(Object.entries(collected[name]).map(([k, v]) => [k, summarize(v)]));
  }
  return out;
}

/** A metric a task promised; a missing one is a harness bug, not a zero. */
export function metric(samples: Record<string, Sample>, key: string): Sample {
  const sample = samples[key];
  if (!sample) throw new Error(`metric ${key} was not measured`);
  return sample;
}

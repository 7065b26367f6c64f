import { runLoad, type LoadSpec } from '../load/run-load.js';
import type { Measurement } from '../lib/repeat.js';

/** One load run as a measurement; a run with failed requests fails the figure (a fast error is not a result). */
export async function loadMeasurement(spec: LoadSpec): Promise<Measurement> {
  const result = await runLoad(spec);
  if (result.errors > 0) {
    throw new Error(`${result.errors} of ${result.requests} ${spec.method} requests failed (${JSON.stringify(result.failures)}): ${result.failureExample ?? ''}`);
  }
  if (result.requests === 0) throw new Error(`no ${spec.method} request completed within ${spec.durationMs} ms`);
  return { rps: result.rps, p50: result.latencyMs.p50, p99: result.latencyMs.p99, max: result.latencyMs.max, requests: result.requests };
}

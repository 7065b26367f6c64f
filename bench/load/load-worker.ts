import { parentPort } from 'node:worker_threads';
import { Pool } from 'undici';
import { SampleBuffer, summarizeLatencies } from '../lib/stats.js';
import type { LoadResult, LoadSpec } from './load-spec.js';

/**
 * Runs in a worker thread so the load generator never shares an event loop with the server it measures.
 * Closed loop: `connections` loops each send the next request when the previous answer has been read whole.
 */
interface Tally {
  next: number;
  errors: number;
  bytes: number;
  failures: Record<string, number>;
  example?: string;
  latencies: SampleBuffer;
}

async function oneRequest(pool: Pool, spec: LoadSpec, n: number, tally: Tally): Promise<void> {
  const path = spec.paths[n % spec.paths.length] ?? '/';
  const body = spec.bodies?.[n % spec.bodies.length];
  const started = performance.now();
  try {
    const res = await pool.request({ path, method: spec.method, headers: spec.headers, body });
    let bytes = 0;
    let text = '';
    const ok = spec.okStatuses.includes(res.statusCode);
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (!ok && text.length < 500) text += String(chunk);
    }
    tally.latencies.push(performance.now() - started);
    tally.bytes += bytes;
    if (!ok) fail(tally, `status ${res.statusCode}`, text);
  } catch (error) {
    fail(tally, error instanceof Error ? (error as NodeJS.ErrnoException).code ?? error.name : 'error', String(error));
  }
}

function fail(tally: Tally, kind: string, example: string): void {
  tally.errors++;
  tally.failures[kind] = (tally.failures[kind] ?? 0) + 1;
  tally.example ??= example.slice(0, 500);
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const tally: Tally = { next: 0, errors: 0, bytes: 0, failures: {}, latencies: new SampleBuffer() };
  const max = spec.maxRequests ?? Number.POSITIVE_INFINITY;
  const started = performance.now();
  const deadline = started + spec.durationMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline && tally.next < max) {
      await oneRequest(pool, spec, tally.next++, tally);
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, loop));
  const elapsedMs = performance.now() - started;
  await pool.close();
  const done = tally.latencies.length;
  return {
    requests: done,
    errors: tally.errors,
    failures: tally.failures,
    ...(tally.example === undefined ? {} : { failureExample: tally.example }),
    elapsedMs,
    rps: ((done - tally.errors) / elapsedMs) * 1000,
    latencyMs: summarizeLatencies(tally.latencies.toArray()),
    bytesReceived: tally.bytes,
  };
}

// One run per message, for as long as the bench keeps this worker (run-load.ts reuses it).
parentPort?.on('message', (spec: LoadSpec) => {
  runLoad(spec).then(
    (result) => parentPort?.postMessage({ ok: true, result }),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: String(error) }),
  );
});

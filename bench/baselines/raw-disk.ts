import { join } from 'node:path';
import { writeFileDurable } from '../../src/lib/durable-file.js';
import { SampleBuffer, summarizeLatencies } from '../lib/stats.js';

/**
 * The disk's own pace for what a durable PUT must do at least once: temp write → fsync → rename → fsync(dir),
 * with `concurrency` writers over `files` names, no HTTP and no parsing. Any durable server is bounded by this.
 */
export async function rawDurableWriteRate(
  dir: string,
  { concurrency, durationMs, files, body }: { concurrency: number; durationMs: number; files: number; body: string },
): Promise<Record<string, number>> {
  const latencies = new SampleBuffer();
  let next = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t = performance.now();
      await writeFileDurable(join(dir, `f${next++ % files}.json`), body);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = performance.now() - started;
  const summary = summarizeLatencies(latencies.toArray());
  return { rps: (summary.count / elapsed) * 1000, p50: summary.p50, p99: summary.p99 };
}

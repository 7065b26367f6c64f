import { availableParallelism } from 'node:os';
import { defaultBodyWorkers } from './routes/dashboard-body-pool.js';

/**
 * Node options for a process whose job is serving the API: `dashcd serve` relaunches itself with them, and the bench
 * runs its servers with them. V8's platform pool (4 threads by default, whatever the core count) runs the background
 * and parallel collector work of the server's isolates, its main thread and its body workers. On two cores under PUT
 * load its threads took the cores from the requests: bench/compare-put, the same build in alternating runs with a
 * pool of 1 and the default, p99 14.3 vs 19.0 ms and 13.9 vs 17.5 ms, req/s +3 % and −4 % (a pool of 2: 16.8 ms).
 * With more cores the pool gets those the server's own threads leave (an estimate: measured on two cores only).
 */
export function serverNodeOptions(cores: number = availableParallelism()): string[] {
  return [`--v8-pool-size=${Math.max(1, cores - 1 - defaultBodyWorkers(cores))}`];
}

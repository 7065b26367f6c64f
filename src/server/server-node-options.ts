import { availableParallelism } from 'node:os';

// How a server process is sized (its body workers, V8's pool) lives here, apart from the pool's code: `dashcd serve`
// reads it before it loads the server (relaunch.ts), and the pool's imports cost a launcher ~70 ms.

/**
 * One worker per core, none on a single core, at most MAX_BODY_WORKERS. The main thread mostly waits on the journal,
 * and bodies come in bursts (one journal commit answers a batch of writers, whose next bodies then arrive together):
 * at 32 connections on two cores, two workers cut a body's mean wait from 3.6 to 2.1 ms against one. The cap is an
 * estimate, not a measurement: the main thread's own share of a PUT (HTTP, the journal; ~200 µs in the two-core
 * profile) bounds a server near 5,000 PUTs/s, which four workers at ~200 µs a body already exceed.
 */
export const defaultBodyWorkers = (cores: number = availableParallelism()): number => (cores > 1 ? Math.min(cores, MAX_BODY_WORKERS) : 0);

const MAX_BODY_WORKERS = 4;

/**
 * Node options for a process whose job is serving the API: `dashcd serve` relaunches itself with them, and the bench
 * runs its servers with them. V8's platform pool (4 threads by default, whatever the core count) runs the background
 * and parallel collector work of the server's isolates, its main thread and its body workers. On two cores under PUT
 * load its threads took the cores from the requests: bench/compare-put, the same build in alternating runs with a
 * pool of 1 and the default, p99 14.3 vs 19.0 ms and 13.9 vs 17.5 ms, req/s +3 % and −4 % (a pool of 2: 16.8 ms).
 * With more cores the pool gets those the server's own threads leave (an estimate: measured on two cores only).
 */
export function serverNodeOptions(cores: number = availableParallelism()): string[] {
  return [`--v8-pool-size=${Math.max(1, cores - 1 - defaultBodyWorkers(cores))}`, `--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`];
}

/**
 * A server's old generation starts this large. V8 begins a full collection whenever the old generation has less than
 * ~16 MB of room, which a server's small heap (~11 MB over a million stored events) always has: paging through the
 * events feed ran one every 150–300 pages, whatever the pages allocated, and on a busy machine its marking steps took
 * 5–48 ms of the requests' time. With 64 MB, none ran over the same passes (by eventType: 20–25 → 0, pauses 57 → 12
 * ms in all), for 3 MB more RSS. The memory is only reserved as the heap grows into it.
 */
const INITIAL_OLD_SPACE_MB = 64;

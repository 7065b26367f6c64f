import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it returns something truthy and returns that. Conditions, not timings: the deadline is
 * generous for a loaded 2-core machine and only bounds a test that would otherwise hang. `failFast` names a reason
 * to stop waiting at once (the process being waited on has exited).
 */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  { timeoutMs = 60_000, intervalMs = 50, what = 'a condition', failFast }: { timeoutMs?: number; intervalMs?: number; what?: string; failFast?: () => string | undefined } = {},
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    const fatal = failFast?.();
    if (fatal) throw new Error(`while waiting for ${what}: ${fatal}`);
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
    await sleep(intervalMs);
  }
}

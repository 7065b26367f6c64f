import { describe, expect, it } from 'vitest';
import { AttemptTimedOut, timeLimited } from '../../../src/client/attempt-time.js';
import { nestsDeeperThan } from '../../../src/lib/json-nesting.js';
import { runWithRetry } from '../../../src/client/retry-loop.js';
import { attemptBound, decideRetry, type AttemptOutcome, type RetryPolicy } from '../../../src/client/retry.js';
import { systemClock, type Clock } from '../../../src/lib/clock.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, deadlineMs: 60_000, attemptTimeoutMs: 30_000 };
const transport = (reason: string): AttemptOutcome => ({ kind: 'transport', reason });

/** Time that moves only when slept. */
function fakeClock(): Clock {
  let now = NOW;
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += ms;
    },
  };
}

/**
 * An attempt that never answers, ending when its signal aborts as the transports end (attempt-failure.ts): a time
 * limit is its outcome, any other reason is thrown. Records each reason.
 */
function untilAborted(reasons: unknown[]) {
  return (_n: number, signal: AbortSignal): Promise<AttemptOutcome> =>
    new Promise((resolve, reject) =>
      signal.addEventListener('abort', () => {
        reasons.push(signal.reason);
        if (signal.reason instanceof AttemptTimedOut) resolve(transport('ATTEMPT_TIMEOUT'));
        else reject(signal.reason as Error);
      }),
    );
}

describe('attemptBound: what ends an attempt still running', () => {
  it("is the attempt's own time limit while more of the deadline is left", () => {
    expect(attemptBound(policy, NOW, NOW)).toEqual({ ms: 30_000, by: 'attempt', limitMs: 30_000 });
    expect(attemptBound(policy, NOW, NOW + 30_000)).toEqual({ ms: 30_000, by: 'attempt', limitMs: 30_000 });
  });

  it('is the deadline once less of it is left, naming the whole deadline', () => {
    expect(attemptBound(policy, NOW, NOW + 45_000)).toEqual({ ms: 15_000, by: 'deadline', limitMs: 60_000 });
    expect(attemptBound({ ...policy, deadlineMs: 5_000 }, NOW, NOW)).toEqual({ ms: 5_000, by: 'deadline', limitMs: 5_000 });
    expect(attemptBound(policy, NOW, NOW + 61_000)).toEqual({ ms: -1_000, by: 'deadline', limitMs: 60_000 });
  });

  it('gives an attempt 120 s when the policy sets no limit of its own', () => {
    const { attemptTimeoutMs: _, ...unset } = policy;
    expect(attemptBound({ ...unset, deadlineMs: 600_000 }, NOW, NOW)).toEqual({ ms: 120_000, by: 'attempt', limitMs: 120_000 });
  });
});

describe('an attempt past its time limit, to the retry policy', () => {
  it('is retried like any timeout when the request may run twice, never otherwise', () => {
    const input = { outcome: transport('ATTEMPT_TIMEOUT'), attempts: 1, policy, startedAtMs: NOW, nowMs: NOW, random: () => 0.5 };
    expect(decideRetry({ ...input, idempotent: true })).toEqual({ retry: true, waitMs: 50, hintMs: undefined });
    expect(decideRetry({ ...input, idempotent: false })).toEqual({ retry: false, why: 'not-retryable' });
  });
});

describe('runWithRetry: the signal of each attempt', () => {
  it('aborts at the attempt time limit with an AttemptTimedOut naming it', async () => {
    const reasons: unknown[] = [];
    const result = await runWithRetry(untilAborted(reasons), { policy: { ...policy, maxAttempts: 1, attemptTimeoutMs: 20 }, clock: systemClock, random: () => 0, idempotent: true });
    expect(result).toEqual({ outcome: transport('ATTEMPT_TIMEOUT'), attempts: 1 });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(AttemptTimedOut);
    expect((reasons[0] as AttemptTimedOut).bound).toEqual({ ms: 20, by: 'attempt', limitMs: 20 });
    expect((reasons[0] as Error).message).toBe('no complete answer within 20 ms, the time limit of one attempt');
  });

  it('aborts at the deadline when that comes first, and retries no more', async () => {
    const reasons: unknown[] = [];
    const result = await runWithRetry(untilAborted(reasons), { policy: { ...policy, deadlineMs: 30 }, clock: systemClock, random: () => 0, idempotent: true });
    expect(result.attempts).toBe(1);
    expect((reasons[0] as AttemptTimedOut).bound).toMatchObject({ by: 'deadline', limitMs: 30 });
    expect((reasons[0] as Error).message).toBe('no complete answer within 30 ms, the retry deadline');
  });

  it("aborts with the request's own reason when the request is abandoned", async () => {
    const controller = new AbortController();
    const reasons: unknown[] = [];
    const attempt = untilAborted(reasons);
    const running = runWithRetry(
      (n, signal) => {
        const answer = attempt(n, signal);
        controller.abort(new Error('shutting down'));
        return answer;
      },
      { policy, clock: systemClock, random: () => 0, idempotent: true, signal: controller.signal },
    );
    await expect(running).rejects.toThrow('shutting down');
    expect(reasons).toEqual([new Error('shutting down')]);
  });

  it('starts no attempt after a wait that ends right at the deadline, and returns the last answer', async () => {
    const calls: number[] = [];
    const busy: AttemptOutcome = { kind: 'response', status: 429, headers: { 'retry-after': '10' } };
    const result = await runWithRetry(
      async (n) => {
        calls.push(n);
        return busy;
      },
      { policy: { ...policy, deadlineMs: 10_000 }, clock: fakeClock(), random: () => 0, idempotent: true },
    );
    expect(result).toEqual({ outcome: busy, attempts: 1 });
    expect(calls).toEqual([1]);
  });
});

describe('timeLimited', () => {
  it("stops following the request's signal once cleared", () => {
    const parent = new AbortController();
    const limited = timeLimited(parent.signal, { ms: 60_000, by: 'attempt', limitMs: 60_000 });
    limited.clear();
    parent.abort(new Error('later'));
    expect(limited.signal.aborted).toBe(false);
  });

  it('is aborted at once when the request already is', () => {
    const limited = timeLimited(AbortSignal.abort(new Error('gone')), { ms: 60_000, by: 'attempt', limitMs: 60_000 });
    limited.clear();
    expect(limited.signal.reason).toEqual(new Error('gone'));
  });
});

describe('nestsDeeperThan', () => {
  const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('counts objects and arrays alike, the value itself being depth 1', () => {
    expect(nestsDeeperThan(arrays(64), 64)).toBe(false);
    expect(nestsDeeperThan(arrays(65), 64)).toBe(true);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeperThan(`[${arrays(3)},${arrays(3)},${arrays(3)}]`, 4)).toBe(false);
    // Closing braces count down as closing brackets do: many objects side by side are not deep.
    expect(nestsDeeperThan(`[${'{"a":{}},'.repeat(10)}{}]`, 3)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(['say "[[[[" and \\', '{{{{']), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(['"\\', [[]]]), 2)).toBe(true);
  });

  it('passes scalars and empty text', () => {
    expect(nestsDeeperThan('"[[["', 0)).toBe(false);
    expect(nestsDeeperThan('12', 0)).toBe(false);
    expect(nestsDeeperThan('', 0)).toBe(false);
    expect(nestsDeeperThan('[]', 0)).toBe(true);
  });

  it('leaves a text with an unterminated string to JSON.parse, which refuses it', () => {
    expect(nestsDeeperThan('<p title="[[[[>', 1)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/lib/clock.js';
import { runWithRetry } from '../../../src/client/retry-loop.js';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  parseRateLimitReset,
  parseRetryAfter,
  REFUSED_ATTEMPTS,
  serverHintMs,
  type AttemptOutcome,
  type DecideInput,
  type RetryPolicy,
} from '../../../src/client/retry.js';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, deadlineMs: 10_000 };
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

const status = (code: number, headers: Record<string, string> = {}): AttemptOutcome => ({
  kind: 'response',
  status: code,
  headers,
});
const transport = (reason: string): AttemptOutcome => ({ kind: 'transport', reason });

function decide(outcome: AttemptOutcome, overrides: Partial<DecideInput> = {}) {
  return decideRetry({
    outcome,
    attempts: 1,
    idempotent: true,
    policy,
    startedAtMs: NOW,
    nowMs: NOW,
    random: () => 0.5,
    ...overrides,
  });
}

/** Time that moves only when slept; records every wait. */
function fakeClock(start = NOW): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
    },
  };
}

describe('backoffMs (full jitter)', () => {
  it('is random() times the doubled base, so a random of 0 means no wait', () => {
    expect(backoffMs(0, policy, () => 0)).toBe(0);
    expect(backoffMs(0, policy, () => 0.5)).toBe(50);
    expect(backoffMs(1, policy, () => 0.5)).toBe(100);
    expect(backoffMs(2, policy, () => 0.5)).toBe(200);
  });

  it('never exceeds the cap however many retries came before', () => {
    expect(backoffMs(10, policy, () => 0.999)).toBe(999);
    expect(backoffMs(60, policy, () => 0.999)).toBeLessThan(policy.maxDelayMs);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('1.5', NOW)).toBe(1_500);
  });

  it('reads an HTTP-date relative to now, and a past date as no wait', () => {
    expect(parseRetryAfter(new Date(NOW + 7_000).toUTCString(), NOW)).toBe(7_000);
    expect(parseRetryAfter(new Date(NOW - 7_000).toUTCString(), NOW)).toBe(0);
  });

  it('rounds fractional seconds up to the next millisecond, never down to an early retry', () => {
    expect(parseRetryAfter('1.25', NOW)).toBe(1_250);
    expect(parseRetryAfter('0.0001', NOW)).toBe(1);
  });

  it('ignores an absent or meaningless value', () => {
    expect(parseRetryAfter('3 seconds', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.', NOW)).toBeUndefined();
    expect(parseRetryAfter('12 Jan 2026 12:00:00 GMT', NOW)).toBeUndefined();
    expect(parseRetryAfter('Thu, not a date', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
  });
});

describe('parseRateLimitReset', () => {
  it('detects seconds, milliseconds and microseconds timestamps by magnitude', () => {
    const resetAt = NOW + 4_000;
    expect(parseRateLimitReset(String(resetAt / 1000), NOW)).toBe(4_000);
    expect(parseRateLimitReset(String(resetAt), NOW)).toBe(4_000);
    expect(parseRateLimitReset(String(resetAt * 1000), NOW)).toBe(4_000);
  });

  it('treats a reset in the past as no wait', () => {
    expect(parseRateLimitReset(String((NOW - 60_000) * 1000), NOW)).toBe(0);
  });

  it('reads a number too small to be a timestamp as a delay in seconds', () => {
    expect(parseRateLimitReset('2', NOW)).toBe(2_000);
    expect(parseRateLimitReset('0.0001', NOW)).toBe(1);
    expect(parseRateLimitReset('999999999', NOW)).toBe(999_999_999_000);
  });

  it('reads each magnitude boundary as the smallest timestamp of the larger unit (all long past)', () => {
    expect(parseRateLimitReset('1000000000', NOW)).toBe(0);
    expect(parseRateLimitReset('100000000000', NOW)).toBe(0);
    expect(parseRateLimitReset('100000000000000', NOW)).toBe(0);
  });

  it('reads a fractional seconds timestamp, rounding the wait up', () => {
    expect(parseRateLimitReset(String((NOW + 1_500) / 1000 + 0.0004), NOW)).toBe(1_501);
  });

  it('ignores an absent or non-numeric value', () => {
    expect(parseRateLimitReset(undefined, NOW)).toBeUndefined();
    expect(parseRateLimitReset('tomorrow', NOW)).toBeUndefined();
    expect(parseRateLimitReset('-5', NOW)).toBeUndefined();
    expect(parseRateLimitReset('5s', NOW)).toBeUndefined();
    expect(parseRateLimitReset('1.', NOW)).toBeUndefined();
  });
});

describe('serverHintMs', () => {
  it('takes the later of Retry-After and X-RateLimit-Reset', () => {
    const headers = { 'retry-after': '1', 'x-ratelimit-reset': String((NOW + 3_000) * 1000) };
    expect(serverHintMs(headers, NOW)).toBe(3_000);
    expect(serverHintMs({ 'retry-after': '5', 'x-ratelimit-reset': String(NOW + 3_000) }, NOW)).toBe(5_000);
  });

  it('uses the first value of a repeated header and is undefined without hints', () => {
    expect(serverHintMs({ 'retry-after': ['2', '9'] }, NOW)).toBe(2_000);
    expect(serverHintMs({}, NOW)).toBeUndefined();
  });
});

describe('decideRetry', () => {
  it('stops on success', () => {
    expect(decide(status(200))).toEqual({ retry: false, why: 'success' });
    expect(decide(status(204))).toEqual({ retry: false, why: 'success' });
  });

  it('retries 429, 502, 503 and 504', () => {
    for (const code of [429, 502, 503, 504]) expect(decide(status(code)).retry).toBe(true);
  });

  it('never retries other client errors, nor 500 and 501', () => {
    for (const code of [400, 401, 403, 404, 409, 413, 500, 501]) {
      expect(decide(status(code))).toEqual({ retry: false, why: 'not-retryable' });
    }
  });

  it('retries connection failures and timeouts, not unknown transport failures', () => {
    const reasons = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];
    for (const reason of [...reasons, 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      expect(decide(transport(reason)).retry).toBe(true);
    }
    expect(decide(transport('ENOTFOUND')).retry).toBe(false);
    expect(decide(transport('UNKNOWN')).retry).toBe(false);
  });

  it('retries a non-idempotent request only when the server cannot have acted on it', () => {
    const once = { idempotent: false };
    expect(decide(status(429), once).retry).toBe(true);
    expect(decide(status(503), once).retry).toBe(true);
    for (const reason of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(decide(transport(reason), once).retry).toBe(true);
    }
    for (const reason of ['EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_BODY_TIMEOUT']) {
      expect(decide(transport(reason), once).retry).toBe(false);
    }
    expect(decide(status(502), once).retry).toBe(false);
    expect(decide(status(504), once).retry).toBe(false);
    expect(decide(transport('ECONNRESET'), once).retry).toBe(false);
    expect(decide(transport('UND_ERR_HEADERS_TIMEOUT'), once).retry).toBe(false);
  });

  it('waits the jittered backoff when the server gives no hint', () => {
    expect(decide(status(503), { attempts: 3, random: () => 0.25 })).toEqual({ retry: true, waitMs: 100, hintMs: undefined });
  });

  it('uses the server hint as a lower bound, and the backoff when it is longer', () => {
    expect(decide(status(429, { 'retry-after': '2' }))).toEqual({ retry: true, waitMs: 2_000, hintMs: 2_000 });
    const longBackoff = decide(status(429, { 'retry-after': '0' }), { attempts: 5, policy: { ...policy, maxAttempts: 9 }, random: () => 0.9 });
    expect(longBackoff).toEqual({ retry: true, waitMs: 900, hintMs: 0 });
  });

  it('by default gives up after the documented 60 s deadline', () => {
    expect(DEFAULT_RETRY_POLICY.deadlineMs).toBe(60_000);
    expect(decideRetry({ outcome: status(503, { 'retry-after': '61' }), attempts: 1, idempotent: true, policy: DEFAULT_RETRY_POLICY, startedAtMs: NOW, nowMs: NOW, random: () => 0 })).toEqual({ retry: false, why: 'deadline' });
    expect(decideRetry({ outcome: status(503, { 'retry-after': '60' }), attempts: 1, idempotent: true, policy: DEFAULT_RETRY_POLICY, startedAtMs: NOW, nowMs: NOW, random: () => 0 }).retry).toBe(true);
  });

  it('counts 3xx answers as final, not as failures', () => {
    expect(decide(status(304))).toEqual({ retry: false, why: 'success' });
    expect(decide(status(399))).toEqual({ retry: false, why: 'success' });
  });

  it('gives up when the attempts are used up', () => {
    expect(decide(status(503), { attempts: 5 })).toEqual({ retry: false, why: 'max-attempts' });
  });

  it(`gives a refused connection ${REFUSED_ATTEMPTS} attempts, fewer when the policy allows fewer, other failures all of them`, () => {
    const many = { ...policy, maxAttempts: 8 };
    expect(decide(transport('ECONNREFUSED'), { attempts: REFUSED_ATTEMPTS - 1, policy: many }).retry).toBe(true);
    expect(decide(transport('ECONNREFUSED'), { attempts: REFUSED_ATTEMPTS, policy: many })).toEqual({ retry: false, why: 'max-attempts' });
    expect(decide(transport('ECONNRESET'), { attempts: REFUSED_ATTEMPTS, policy: many }).retry).toBe(true);
    expect(decide(status(503), { attempts: REFUSED_ATTEMPTS, policy: many }).retry).toBe(true);
    expect(decide(transport('ECONNREFUSED'), { attempts: 2, policy: { ...policy, maxAttempts: 2 } })).toEqual({ retry: false, why: 'max-attempts' });
  });

  it('waits at least twice the base after a refused connection, doubling, however the jitter falls (0.5, 1, 2 s by default)', () => {
    const long = { ...DEFAULT_RETRY_POLICY, maxAttempts: 8 };
    const waits = [1, 2, 3].map((attempts) => decideRetry({ outcome: transport('ECONNREFUSED'), attempts, idempotent: true, policy: long, startedAtMs: NOW, nowMs: NOW, random: () => 0 }));
    expect(waits).toEqual([500, 1_000, 2_000].map((waitMs) => ({ retry: true, waitMs, hintMs: undefined })));
    // A faster policy (tests') waits less, in proportion; other failures have no floor.
    expect(decide(transport('ECONNREFUSED'), { attempts: 2, policy: { ...long, baseDelayMs: 5 }, random: () => 0 })).toMatchObject({ waitMs: 20 });
    expect(decide(transport('ECONNRESET'), { attempts: 1, policy: long, random: () => 0 })).toMatchObject({ waitMs: 0 });
  });

  it('gives up now, rather than wait, when the wait would end past the deadline', () => {
    expect(decide(status(429, { 'retry-after': '11' }))).toEqual({ retry: false, why: 'deadline' });
    expect(decide(status(429, { 'retry-after': '2' }), { nowMs: NOW + 9_000 })).toEqual({ retry: false, why: 'deadline' });
    expect(decide(status(429, { 'retry-after': '2' }), { nowMs: NOW + 8_000 }).retry).toBe(true);
  });
});

describe('runWithRetry', () => {
  const scripted = (outcomes: AttemptOutcome[]) => {
    const calls: number[] = [];
    const attempt = async (n: number) => {
      calls.push(n);
      const next = outcomes[Math.min(n - 1, outcomes.length - 1)];
      if (next === undefined) throw new Error('script is empty');
      return next;
    };
    return { attempt, calls };
  };

  it('retries until success, sleeping the server hint between attempts', async () => {
    const clock = fakeClock();
    const { attempt, calls } = scripted([status(429, { 'retry-after': '1' }), status(503, { 'retry-after': '2' }), status(200)]);
    const result = await runWithRetry(attempt, { policy, clock, random: () => 0, idempotent: true });
    expect(result).toEqual({ outcome: status(200), attempts: 3 });
    expect(calls).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([1_000, 2_000]);
  });

  it('returns the last failure when the deadline would be passed, without sleeping into it', async () => {
    const clock = fakeClock();
    const outcomes = [status(503, { 'retry-after': '4' }), status(503, { 'retry-after': '4' }), status(503, { 'retry-after': '4' })];
    const { attempt } = scripted(outcomes);
    const result = await runWithRetry(attempt, { policy, clock, random: () => 0, idempotent: true });
    expect(result.attempts).toBe(3);
    expect(result.outcome).toEqual(outcomes[2]);
    expect(clock.sleeps).toEqual([4_000, 4_000]);
  });

  it('reports each retry with the failed attempt and the wait', async () => {
    const clock = fakeClock();
    const seen: Array<{ attempt: number; waitMs: number }> = [];
    const { attempt } = scripted([transport('ECONNRESET'), status(200)]);
    await runWithRetry(attempt, {
      policy,
      clock,
      random: () => 0.5,
      idempotent: true,
      onRetry: ({ attempt: n, waitMs }) => seen.push({ attempt: n, waitMs }),
    });
    expect(seen).toEqual([{ attempt: 1, waitMs: 50 }]);
  });

  it('rejects with the abort reason when the signal fires during a wait', async () => {
    const controller = new AbortController();
    const { attempt, calls } = scripted([status(429, { 'retry-after': '5' })]);
    const { systemClock } = await import('../../../src/lib/clock.js');
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('shutting down')), 30);
    await expect(
      runWithRetry(attempt, { policy, clock: systemClock, random: () => 0, idempotent: true, signal: controller.signal }),
    ).rejects.toThrow('shutting down');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(calls).toEqual([1]);
  });

  it('does not start an attempt once the signal is aborted', async () => {
    const { attempt, calls } = scripted([status(200)]);
    const signal = AbortSignal.abort(new Error('cancelled'));
    await expect(runWithRetry(attempt, { policy, clock: fakeClock(), random: () => 0, idempotent: true, signal })).rejects.toThrow('cancelled');
    expect(calls).toEqual([]);
  });
});

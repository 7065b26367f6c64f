import { describe, expect, it } from 'vitest';
import { createRetryLogger } from '../../../src/client/retry-log.js';
import type { Clock } from '../../../src/lib/clock.js';
import { captureLog } from '../../helpers/log-capture.js';

/** A clock the test moves by hand; the retry logger only reads `now`. */
function manualClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: () => Promise.reject(new Error('the retry logger never sleeps')),
    advance(ms) {
      now += ms;
    },
  };
}

const SITE = { method: 'GET' as const, url: 'http://127.0.0.1:8080/e/prod/api/config/v1/dashboards' };
const status = (code: number) => ({ kind: 'response' as const, status: code, headers: {} });
const refused = { kind: 'transport' as const, reason: 'ECONNREFUSED' };
const WARN = 40;
const DEBUG = 20;

function setup() {
  const { lines, log } = captureLog('debug');
  const clock = manualClock();
  const retried = createRetryLogger(log, clock);
  const logged = (): Array<Record<string, unknown>> => lines.map(({ level, msg, time: _time, pid: _pid, hostname: _host, ...fields }) => ({ level, msg, ...fields }));
  return { retried, clock, logged };
}

describe('createRetryLogger', () => {
  it('warns on the first retry with the status, attempt and wait, then logs retries within 5 s at debug', () => {
    const { retried, clock, logged } = setup();
    retried(SITE, { outcome: status(503), attempt: 1, waitMs: 200 });
    clock.advance(4_999);
    retried(SITE, { outcome: refused, attempt: 2, waitMs: 400 });
    expect(logged()).toEqual([
      { level: WARN, msg: 'retrying request', ...SITE, status: 503, attempt: 1, waitMs: 200 },
      { level: DEBUG, msg: 'retrying request', ...SITE, reason: 'ECONNREFUSED', attempt: 2, waitMs: 400 },
    ]);
  });

  it('warns again once the quiet window ends, with how many retries it quieted', () => {
    const { retried, clock, logged } = setup();
    retried(SITE, { outcome: status(502), attempt: 1, waitMs: 100 });
    retried(SITE, { outcome: status(502), attempt: 2, waitMs: 100 });
    retried(SITE, { outcome: refused, attempt: 3, waitMs: 100 });
    clock.advance(5_000);
    retried(SITE, { outcome: status(504), attempt: 4, waitMs: 100 });
    clock.advance(5_000);
    retried(SITE, { outcome: status(504), attempt: 5, waitMs: 100 });
    expect(logged().map(({ level, attempt, retriesSinceLastWarning }) => ({ level, attempt, retriesSinceLastWarning }))).toEqual([
      { level: WARN, attempt: 1, retriesSinceLastWarning: undefined },
      { level: DEBUG, attempt: 2, retriesSinceLastWarning: undefined },
      { level: DEBUG, attempt: 3, retriesSinceLastWarning: undefined },
      { level: WARN, attempt: 4, retriesSinceLastWarning: 2 },
      // The count starts again after each warning.
      { level: WARN, attempt: 5, retriesSinceLastWarning: undefined },
    ]);
    expect('retriesSinceLastWarning' in logged()[4]!).toBe(false);
  });

  it('stretches the quiet window to a backoff longer than 5 s', () => {
    const { retried, clock, logged } = setup();
    retried(SITE, { outcome: status(503), attempt: 1, waitMs: 30_000 });
    clock.advance(29_999);
    retried(SITE, { outcome: status(503), attempt: 2, waitMs: 30_000 });
    clock.advance(1);
    retried(SITE, { outcome: status(503), attempt: 3, waitMs: 100 });
    expect(logged().map(({ level }) => level)).toEqual([WARN, DEBUG, WARN]);
  });

  it('logs a 429 retry at debug always, without opening a quiet window or counting it as quieted', () => {
    const { retried, clock, logged } = setup();
    retried(SITE, { outcome: status(429), attempt: 1, waitMs: 1_000 });
    retried(SITE, { outcome: status(503), attempt: 2, waitMs: 1_000 });
    retried(SITE, { outcome: status(429), attempt: 3, waitMs: 1_000 });
    clock.advance(5_000);
    retried(SITE, { outcome: status(503), attempt: 4, waitMs: 1_000 });
    expect(logged().map(({ level, status: code, retriesSinceLastWarning }) => ({ level, code, retriesSinceLastWarning }))).toEqual([
      { level: DEBUG, code: 429, retriesSinceLastWarning: undefined },
      { level: WARN, code: 503, retriesSinceLastWarning: undefined },
      { level: DEBUG, code: 429, retriesSinceLastWarning: undefined },
      { level: WARN, code: 503, retriesSinceLastWarning: undefined },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { retryFromEnv } from '../../../src/cli/target.js';
import { UsageError } from '../../../src/cli/exit-codes.js';

describe('retryFromEnv: DASHCD_RETRY_DEADLINE', () => {
  it('takes a duration, and nothing when unset or empty', () => {
    expect(retryFromEnv({ DASHCD_RETRY_DEADLINE: '30s' })).toEqual({ deadlineMs: 30_000 });
    expect(retryFromEnv({ DASHCD_RETRY_DEADLINE: '500ms' })).toEqual({ deadlineMs: 500 });
    expect(retryFromEnv({})).toEqual({});
    expect(retryFromEnv({ DASHCD_RETRY_DEADLINE: '' })).toEqual({});
  });

  it('refuses what is not a duration, and 0, which would leave no time for one answer', () => {
    for (const raw of ['soon', '0', '0s']) {
      expect(() => retryFromEnv({ DASHCD_RETRY_DEADLINE: raw }), raw).toThrow(UsageError);
      expect(() => retryFromEnv({ DASHCD_RETRY_DEADLINE: raw }), raw).toThrow(`DASHCD_RETRY_DEADLINE must be a duration like 30s or 2m, above 0, got '${raw}'`);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { combinedExitCode } from '../../../src/cli/run-environments.js';

describe('combinedExitCode over environments', () => {
  it('keeps one code, agrees on alike codes, gives 5 for a mix of failures, and 130 when any was interrupted', () => {
    expect(combinedExitCode([ExitCode.Success, ExitCode.Success])).toBe(ExitCode.Success);
    expect(combinedExitCode([ExitCode.Success, ExitCode.ChangesPending])).toBe(ExitCode.ChangesPending);
    expect(combinedExitCode([ExitCode.TargetUnavailable, ExitCode.TargetUnavailable])).toBe(ExitCode.TargetUnavailable);
    expect(combinedExitCode([ExitCode.Success, ExitCode.TargetUnavailable])).toBe(ExitCode.ApplyFailed);
    expect(combinedExitCode([ExitCode.Success, ExitCode.Interrupted])).toBe(ExitCode.Interrupted);
    expect(combinedExitCode([ExitCode.ApplyFailed, ExitCode.Interrupted, ExitCode.Success])).toBe(ExitCode.Interrupted);
  });
});

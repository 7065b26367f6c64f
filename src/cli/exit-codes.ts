/** Exit codes shared by every command; the README's table is this list. */
export const ExitCode = {
  Success: 0,
  Unexpected: 1,
  ChangesPending: 2,
  InvalidDesiredState: 3,
  TargetUnavailable: 4,
  ApplyFailed: 5,
  Usage: 64,
  /** Stopped by SIGINT/SIGTERM before it finished (128 + SIGINT, as a shell reports it). */
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure that maps to a specific exit code; anything else thrown is a bug and exits 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.Usage);
    this.name = 'UsageError';
  }
}

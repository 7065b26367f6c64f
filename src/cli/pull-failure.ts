import { ArchiveError } from '../archive/archive-error.js';
import { isClientError } from '../client/errors.js';
import { exhaustionOf } from '../lib/fs-errors.js';
import { CliError, ExitCode } from './exit-codes.js';

/**
 * Why an `events pull` run stopped, as an exit code; the checkpoint covers everything written before it. A full
 * disk (or no descriptors left) under the archive is a resource to free, not a bug: exit 4 like an unavailable feed,
 * naming the folder, so a scheduled pull is retried once there is room.
 */
export function pullFailure(error: unknown, signal: AbortSignal, archiveDir: string): unknown {
  const resume = 'the checkpoint is saved: run the same command again to resume';
  if (signal.aborted) return new CliError(`interrupted; ${resume}`, ExitCode.Unexpected, { cause: error });
  if (isClientError(error)) return new CliError(`${error.message} — ${resume}`, ExitCode.TargetUnavailable, { cause: error });
  const exhaustion = exhaustionOf(error);
  if (exhaustion !== undefined) {
    const free = exhaustion.resource === 'disk space' ? `free space under ${archiveDir}` : 'close other programs or raise the open-files limit (ulimit -n)';
    return new CliError(`the events archive at ${archiveDir} is out of ${exhaustion.resource} (${exhaustion.code}): ${free}; ${resume}`, ExitCode.TargetUnavailable, { cause: error });
  }
  if (error instanceof ArchiveError) {
    const code = error.code === 'BAD_PAGE' ? ExitCode.TargetUnavailable : ExitCode.Unexpected;
    return new CliError(error.code === 'BAD_PAGE' ? `${error.message} — ${resume}` : error.message, code, { cause: error });
  }
  return error;
}

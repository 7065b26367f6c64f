import { ArchiveError } from '../archive/archive-error.js';
import { ApiError, isClientError, TransportError } from '../client/errors.js';
import { exhaustionOf } from '../lib/fs-errors.js';
import { CliError, ExitCode } from './exit-codes.js';

/**
 * Why an `events pull` run stopped, as an exit code; the checkpoint covers everything written before it. A full
 * disk (or no descriptors left) under the archive is a resource to free, not a bug: exit 4 like an unavailable feed,
 * naming the folder, so a scheduled pull is retried once there is room.
 */
export function pullFailure(error: unknown, signal: AbortSignal, archiveDir: string): unknown {
  const resume = 'the checkpoint is saved: run the same command again to resume';
  // A refused token, a wrong URL or a broken page is no better on a rerun: said so, the rerun comes once it is mended.
  const resumeOnceFixed = 'the checkpoint is saved: once this is fixed, the same command resumes';
  if (signal.aborted) return new CliError(resume, ExitCode.Interrupted, { cause: error });
  if (isClientError(error)) return new CliError(`${error.message} — ${passes(error) ? resume : resumeOnceFixed}`, ExitCode.TargetUnavailable, { cause: error });
  const exhaustion = exhaustionOf(error);
  if (exhaustion !== undefined) {
    const free = exhaustion.resource === 'disk space' ? `free space under ${archiveDir}` : 'close other programs or raise the open-files limit (ulimit -n)';
    return new CliError(`the events archive at ${archiveDir} is out of ${exhaustion.resource} (${exhaustion.code}): ${free}; ${resumeOnceFixed}`, ExitCode.TargetUnavailable, { cause: error });
  }
  if (error instanceof ArchiveError) {
    const code = error.code === 'BAD_PAGE' ? ExitCode.TargetUnavailable : ExitCode.Unexpected;
    return new CliError(error.code === 'BAD_PAGE' ? `${error.message} — ${resumeOnceFixed}` : error.message, code, { cause: error });
  }
  return error;
}

/** Whether a failure may pass by itself: the target unreachable, busy or failing (5xx, 429, 408). */
function passes(error: Error): boolean {
  if (error instanceof TransportError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 429 || error.status === 408);
}

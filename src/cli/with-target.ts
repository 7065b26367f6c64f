import { ApiError, isClientError } from '../client/errors.js';
import { openTarget, type TargetFlags, type TargetSession } from './target.js';
import type { CommandIo } from './command.js';
import { CliError, ExitCode } from './exit-codes.js';
import { errorMessage } from '../lib/error-message.js';

/**
 * Opens the target for the duration of `work` and always closes it. A target that cannot be used becomes exit code
 * 4 with the client's one-line explanation, wherever in `work` it happens (see `isTargetFailure`).
 */
export async function withTarget<T>(flags: TargetFlags, io: CommandIo, work: (target: TargetSession) => Promise<T>): Promise<T> {
  let target: TargetSession | undefined;
  try {
    target = await openTarget(flags, io);
    return await work(target);
  } catch (error) {
    throw asTargetUnavailable(error);
  } finally {
    await target?.close();
  }
}

/** A target failure becomes exit 4 with its message; anything else is passed on as it is. */
export function asTargetUnavailable(error: unknown): unknown {
  if (!isTargetFailure(error)) return error;
  return new CliError(errorMessage(error), ExitCode.TargetUnavailable, { cause: error });
}

/** Statuses that say "this target cannot serve us now" rather than "dashcd sent something wrong". */
const TARGET_STATUS = new Set([401, 403, 404, 429]);

/**
 * The target is unreachable, rejects the token, is not the API (a 404 for an API path, a body that is not the
 * contract) or keeps failing (429/5xx after the retries). Any other 4xx means dashcd sent something wrong: a bug.
 */
export function isTargetFailure(error: unknown): boolean {
  if (!isClientError(error)) return false;
  if (!(error instanceof ApiError)) return true;
  // A redirect is the target's too (an http → https hop, an SSO gateway): dashcd follows none, so the token stays.
  return TARGET_STATUS.has(error.status) || error.status >= 500 || (error.status >= 300 && error.status < 400);
}

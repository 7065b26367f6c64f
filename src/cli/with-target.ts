import { isAuthError, isUnreachable } from '../client/errors.js';
import { openTarget, type TargetFlags, type TargetSession } from './target.js';
import type { CommandIo } from './command.js';
import { CliError, ExitCode } from './exit-codes.js';

/**
 * Opens the target for the duration of `work` and always closes it. A target that cannot be reached or rejects the
 * token becomes exit code 4 with the client's one-line explanation, wherever in `work` it happens.
 */
export async function withTarget<T>(flags: TargetFlags, io: CommandIo, work: (target: TargetSession) => Promise<T>): Promise<T> {
  let target: TargetSession | undefined;
  try {
    target = await openTarget(flags, io);
    return await work(target);
  } catch (error) {
    if (isAuthError(error) || isUnreachable(error)) {
      throw new CliError(error instanceof Error ? error.message : String(error), ExitCode.TargetUnavailable, { cause: error });
    }
    throw error;
  } finally {
    await target?.close();
  }
}

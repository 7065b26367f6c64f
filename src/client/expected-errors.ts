import { pino } from 'pino';
import { isClientError } from './errors.js';
import { PlatformAuthError } from './platform-auth.js';
import type { Logger } from '../lib/logger.js';

/**
 * `log`, with an `err` that is one of the client's own errors (a target unreachable, a token rejected, an answer
 * that is not the API, an OAuth token refused) logged as its message. Those are the everyday weather of whatever
 * retries until the target is back (the daemon's passes and polls, `events pull --follow`), and their message
 * already says what failed and what to fix; their stack says nothing and buried that message in every retry's line.
 * Anything else keeps pino's serializer, stack included: it is a bug, and the stack is what finds it.
 */
export function expectedErrorsAsMessages(log: Logger): Logger {
  return log.child({}, { serializers: { err: (error: unknown) => (isExpected(error) ? error.message : pino.stdSerializers.err(error as Error)) } });
}

function isExpected(error: unknown): error is Error {
  return isClientError(error) || error instanceof PlatformAuthError;
}

import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Anything that may carry a token, wherever it appears in a log object. */
const REDACT_PATHS = [
  'token',
  '*.token',
  'apiToken',
  '*.apiToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'adminKey',
  '*.adminKey',
];

const TOKEN_IN_URL = /([?&](?:api-token|Api-Token|API-TOKEN)=)[^&#\s]*/gi;
const TOKEN_SHAPE = /dt0c01\.[A-Za-z0-9]+\.[A-Za-z0-9]+/g;

/** Removes tokens from free text: `Api-Token` query values and anything shaped like a token. */
export function redactText(text: string): string {
  return text.replace(TOKEN_IN_URL, '$1[REDACTED]').replace(TOKEN_SHAPE, '[REDACTED]');
}

export interface CreateLoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

/**
 * The one logger factory. Logs go to stderr (stdout is for user output) as JSON lines; every string field is
 * scrubbed of token-shaped values and `Api-Token` URL parameters in addition to path-based redaction.
 */
export function createLogger({ level = 'info', destination }: CreateLoggerOptions = {}): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => scrub(arg)) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
      },
    },
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrub(item, depth + 1);
  return out;
}

/** A logger that writes nothing, for library callers and tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

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

/**
 * A character or any percent-escape of it: URLSearchParams decodes `Api%2DToken=dt0c01%2E…` and the server accepts
 * it, so the log must not show it either. Both letter cases are listed; the `i` flag covers the hex digits' case.
 */
function orEscaped(char: string): string {
  const escapes = new Set([char.toLowerCase(), char.toUpperCase()].map((c) => `%${c.charCodeAt(0).toString(16)}`));
  return `(?:${char === '.' ? '\\.' : char}|${[...escapes].join('|')})`;
}
const orEscapedWord = (word: string): string => [...word].map(orEscaped).join('');
/** A letter or digit, or the escape of one (%30-%39, %41-%5A, %61-%7A). */
const ALNUM = '(?:[a-z0-9]|%(?:3[0-9]|[46][1-9a-f]|[57][0-9a]))';

/** Query parameters that carry a secret: the API's token, and OAuth's access token and client secret. */
const SECRET_PARAMETERS = ['api-token', 'access_token', 'client_secret'].map(orEscapedWord).join('|');
const TOKEN_IN_URL = new RegExp(`([?&](?:${SECRET_PARAMETERS})=)[^&#\\s]*`, 'gi');
/** `dt0c01.…` API tokens, `dt0s16.…` platform tokens, `dt0s02.…` OAuth client secrets: any `dt0` + three, then two parts. */
const TOKEN_SHAPE = new RegExp(`${orEscapedWord('dt0')}${ALNUM}{3}${orEscaped('.')}${ALNUM}+${orEscaped('.')}${ALNUM}+`, 'gi');

/** Removes secrets from free text: secret query values and anything shaped like a token, escaped or not. */
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

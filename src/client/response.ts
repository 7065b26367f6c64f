import type { z } from 'zod';
import { formatIssuePath } from '../schema/error-envelope.js';
import { MAX_JSON_DEPTH } from '../schema/limits.js';
import { UnexpectedResponseError, type HttpMethod } from './errors.js';
import { nestsDeeperThan } from '../lib/json-nesting.js';
import type { ResponseHeaders } from './retry.js';

/** One final HTTP answer, after the retry policy, with where it came from (redacted) and how many tries it took. */
export interface TextResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly text: string;
  readonly method: HttpMethod;
  readonly url: string;
  readonly attempts: number;
}

const SHOWN_PROBLEMS = 3;

export function unexpectedResponse(response: TextResponse, problems: readonly string[]): UnexpectedResponseError {
  const shown = problems.slice(0, SHOWN_PROBLEMS).join('; ');
  const more = problems.length > SHOWN_PROBLEMS ? ` (+${problems.length - SHOWN_PROBLEMS} more)` : '';
  const message =
    `unexpected ${response.status} body from ${response.method} ${response.url}: ${shown}${more}` +
    ' — is the target URL (--target, DT_ENV_URL or dashcd.yaml) the environment root?';
  return new UnexpectedResponseError(message, { ...response, problems });
}

/**
 * JSON.parse that reports a non-JSON body, or one nested deeper than a target accepts (MAX_JSON_DEPTH), as an
 * UnexpectedResponseError: a live dashboard nesting 200,000 arrays ended `plan` in a bare stack overflow.
 */
export function parseJsonText(response: TextResponse): unknown {
  if (nestsDeeperThan(response.text, MAX_JSON_DEPTH)) {
    throw unexpectedResponse(response, [`nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays, more than a target accepts`]);
  }
  try {
    return JSON.parse(response.text);
  } catch {
    const start = response.text.slice(0, 40).replace(/\s+/g, ' ');
    throw unexpectedResponse(response, [`body is not JSON (starts with ${JSON.stringify(start)})`]);
  }
}

/**
 * Checks the body against `schema` and returns the server's own parsed JSON, not zod's output: zod rebuilds
 * objects (key order changes), and callers diff and store what the server sent. The schemas have no transforms,
 * so the checked JSON already has the inferred type.
 */
export function parseBodyAs<S extends z.ZodType>(response: TextResponse, schema: S): z.infer<S> {
  const json = parseJsonText(response);
  const checked = schema.safeParse(json);
  if (!checked.success) {
    throw unexpectedResponse(
      response,
      checked.error.issues.map((issue) => `${formatIssuePath(issue.path) || '(root)'}: ${issue.message}`),
    );
  }
  return json as z.infer<S>;
}

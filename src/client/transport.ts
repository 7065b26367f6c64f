import { Pool } from 'undici';
import { failedAttempt, type FailedAttempt } from './attempt-failure.js';
import { API_ANSWER_LIMIT_BYTES, readText } from './bounded-body.js';
import type { HttpMethod } from './errors.js';
import type { ResponseHeaders } from './retry.js';

export interface TransportOptions {
  /** `protocol://host:port`, no path. */
  readonly origin: string;
  readonly connections: number;
  /** Bounds the wait for response headers and each pause while the body streams (the whole attempt: retry-loop.ts). */
  readonly requestTimeoutMs: number;
  readonly connectTimeoutMs?: number;
}

export interface SendInput {
  readonly method: HttpMethod;
  /** Path and query, starting with `/`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Bytes, so every attempt sends the same ones without encoding them again. */
  readonly body?: Uint8Array;
  /** The attempt's signal: its abort ends the request, the body's streaming included. */
  readonly signal?: AbortSignal;
}

export type TransportOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly headers: ResponseHeaders; readonly text: string }
  | FailedAttempt;

export interface Transport {
  send(input: SendInput): Promise<TransportOutcome>;
  close(): Promise<void>;
}

/**
 * One keep-alive undici Pool for the target's origin (fetch is not used: it costs about half the throughput).
 * Every body is read to the end, so sockets return to the pool, or up to its limit, past which the connection is
 * dropped (bounded-body.ts). A failure without a usable answer is a value, not a throw, so the retry loop can
 * classify it; only an abort of the caller's signal throws.
 */
export function createTransport({
  origin,
  connections,
  requestTimeoutMs,
  connectTimeoutMs = 10_000,
}: TransportOptions): Transport {
  const pool = new Pool(origin, {
    connections,
    headersTimeout: requestTimeoutMs,
    bodyTimeout: requestTimeoutMs,
    keepAliveTimeout: 10_000,
    connect: { timeout: connectTimeoutMs },
  });
  return {
    async send(input) {
      try {
        const response = await pool.request({
          method: input.method,
          path: input.path,
          headers: input.headers,
          body: input.body ?? null,
          signal: input.signal ?? null,
        });
        const text = await readText(response, API_ANSWER_LIMIT_BYTES);
        return { kind: 'response', status: response.statusCode, headers: response.headers, text };
      } catch (error) {
        return failedAttempt(error, input.signal);
      }
    },
    close: () => pool.close(),
  };
}

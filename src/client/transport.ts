import { Pool } from 'undici';
import type { HttpMethod } from './errors.js';
import { transportReason } from './messages.js';
import type { ResponseHeaders } from './retry.js';

export interface TransportOptions {
  /** `protocol://host:port`, no path. */
  readonly origin: string;
  readonly connections: number;
  /** Bounds both the wait for response headers and any pause while the body streams. */
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
  readonly signal?: AbortSignal;
}

export type TransportOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly headers: ResponseHeaders; readonly text: string }
  | { readonly kind: 'transport'; readonly reason: string; readonly cause: unknown };

export interface Transport {
  send(input: SendInput): Promise<TransportOutcome>;
  close(): Promise<void>;
}

/**
 * One keep-alive undici Pool for the target's origin (fetch is not used: it costs about half the throughput).
 * Every body is read to the end, so sockets always return to the pool. A failure without an HTTP answer is a
 * value, not a throw, so the retry loop can classify it; only an abort of the caller's signal throws.
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
        const text = await response.body.text();
        return { kind: 'response', status: response.statusCode, headers: response.headers, text };
      } catch (error) {
        if (input.signal?.aborted) throw input.signal.reason;
        return { kind: 'transport', reason: transportReason(error), cause: error };
      }
    },
    close: () => pool.close(),
  };
}

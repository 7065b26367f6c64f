import type { LatencySummary } from '../lib/stats.js';

/**
 * What one load run sends. Request n goes to `paths[n % paths.length]` with `bodies[n % bodies.length]`: with
 * coprime lengths, consecutive writes to one path carry different content.
 */
export interface LoadSpec {
  origin: string;
  method: 'GET' | 'PUT' | 'POST';
  paths: readonly string[];
  headers: Readonly<Record<string, string>>;
  bodies?: readonly string[];
  connections: number;
  /** The run stops by itself at whichever comes first. */
  durationMs: number;
  maxRequests?: number;
  /** Statuses that count as success; anything else is an error and is reported. */
  okStatuses: readonly number[];
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** Unexpected statuses and transport errors by kind, with one example body so a failing figure says why. */
  failures: Record<string, number>;
  failureExample?: string;
  elapsedMs: number;
  rps: number;
  latencyMs: LatencySummary;
  bytesReceived: number;
}

import { parseTimeArg } from '../archive/time-arg.js';
import { stringFlag, type FlagValues } from './command.js';
import { UsageError } from './exit-codes.js';

/** An integer flag of at least `min` (default 0), with a usage error naming the flag and its least when it is not one. */
export function intFlag(flags: FlagValues, name: string, fallback: number, { min = 0 }: { min?: number } = {}): number {
  const raw = stringFlag(flags, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`--${name} must be an integer of at least ${min}, got '${raw}'`);
  return value;
}

/** Durations like `60s`, `5m`, `1h`, `500ms`, or bare milliseconds. */
export function durationFlag(flags: FlagValues, name: string, fallbackMs: number, { minMs = 0 }: { minMs?: number } = {}): number {
  const raw = stringFlag(flags, name);
  if (raw === undefined) return fallbackMs;
  const ms = parseDuration(raw);
  if (ms === undefined) throw new UsageError(`--${name} must be a duration like 500ms, 60s, 5m or 1h, got '${raw}'`);
  // Below the least that makes sense is a usage error, as --concurrency 0 is: raising it unasked would surprise.
  if (ms < minMs) throw new UsageError(`--${name} must be at least ${minMs % 1000 === 0 ? `${minMs / 1000}s` : `${minMs}ms`}, got '${raw}'`);
  return ms;
}

/** `60s` → 60000; undefined when `raw` is not a duration. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) return undefined;
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] ?? 1;
  return Math.round(Number(match[1]) * factor);
}

/**
 * How far back from `now` a time flag reaches (`--since 30d`, `--since 2026-11-01`): any form `parseTimeArg` reads,
 * as milliseconds before `now`; a time in the future is a usage error.
 */
export function lookbackFlag(flags: FlagValues, name: string, now: number, fallback: string): number {
  const raw = stringFlag(flags, name) ?? fallback;
  let ms: number;
  try {
    ms = now - parseTimeArg(raw, now);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
  if (ms < 0) throw new UsageError(`--${name} ${raw} is in the future`);
  return ms;
}

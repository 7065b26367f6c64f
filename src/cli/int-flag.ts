import type { Since } from '../archive/pull-plan.js';
import { parseDuration as parseSpan, parseTimeArg } from '../archive/time-arg.js';
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

/** `60s` → 60000 (time-arg.ts's forms), or bare milliseconds; undefined when `raw` is not a duration. */
export function parseDuration(raw: string): number | undefined {
  const trimmed = raw.trim();
  return /^\d+(?:\.\d+)?$/.test(trimmed) ? Math.round(Number(trimmed)) : parseSpan(trimmed);
}

/**
 * Where a time flag reaching back starts: a span (`--since 30d`) back from each later `now`, any other form
 * `parseTimeArg` reads (`--since 2026-11-01`) the instant it names; a time in the future is a usage error.
 */
export function lookbackFlag(flags: FlagValues, name: string, now: number, fallback: string): Since {
  const raw = stringFlag(flags, name) ?? fallback;
  let at: number;
  try {
    at = parseTimeArg(raw, now);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
  if (at > now) throw new UsageError(`--${name} ${raw} is in the future`);
  const back = parseSpan(raw.trim());
  return back === undefined ? { from: at } : { back };
}

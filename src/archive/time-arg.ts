import { ArchiveError } from './archive-error.js';
import { DAY_MS } from './archived-event.js';

/** `2024-05-01`, optionally `T12:00` (or ` 12:00`, as people type it), `:30`, `.250`, and `Z` or `+02:00`. */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?))?(Z|[+-]\d{2}:\d{2})?$/;

/** The smallest bare number read as epoch milliseconds (1973-03-03): below it, a count without its unit. */
const MIN_EPOCH_MS = 100_000_000_000;
/** A bare number this large (1973 in seconds) is epoch seconds, not a count of days. */
const EPOCH_SECONDS_FROM = 100_000_000;
/** Epoch seconds are suggested only when they make a time before 2200: 99999999999 as seconds is the year 5138. */
const LATEST_SECONDS_HINT = Date.UTC(2200, 0, 1);

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** A duration such as `500ms`, `90s`, `30m`, `12h`, `7d`, `2w`, in milliseconds; undefined when not one. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] as string] as number));
}

/**
 * Which end of a range an argument closes. Ranges are inclusive at both ends, on integer milliseconds, so a bare
 * date as the `end` means "through that whole day": its last millisecond, i.e. exclusive at the next UTC midnight.
 * `--from 2024-05-01 --to 2024-05-01` is then that one day, not the single instant at its midnight. Date-times,
 * epoch ms and relative forms are exact at either end.
 */
export type TimeBound = 'start' | 'end';

/**
 * An instant from a command-line argument: `now`, `today` or `yesterday` (UTC days, like the partitions), a relative
 * form (`7d`, `12h`, `30m` = that long before `now`), epoch milliseconds (`1700000000000`), an ISO date
 * (`2024-05-01`, UTC midnight; as an `end` bound the day's last millisecond) or an ISO date-time
 * (`2024-05-01T12:00:00Z`, or `2024-05-01 12:00`; without an offset it is read as UTC).
 * Throws ArchiveError `BAD_TIME` otherwise.
 */
export function parseTimeArg(text: string, now: number, bound: TimeBound = 'start'): number {
  const trimmed = text.trim();
  const named = namedTime(trimmed.toLowerCase(), now, bound);
  if (named !== undefined) return named;
  const duration = parseDuration(trimmed);
  if (duration !== undefined) return now - duration;
  if (/^-?\d+$/.test(trimmed)) {
    const ms = Number(trimmed);
    // `--since 30` meant 30 days, and walked the feed from 1970 in two-year windows; 1700000000 is epoch seconds.
    if (ms !== 0 && Math.abs(ms) < MIN_EPOCH_MS) {
      const count = Math.abs(ms);
      // Each hint one that works: a count of days, or epoch seconds that make a time before LATEST_SECONDS_HINT.
      const meant = count < EPOCH_SECONDS_FROM ? `for ${count} days back write ${count}d` : count * 1000 <= LATEST_SECONDS_HINT ? `epoch seconds? write ${count}000` : 'write a date (2024-05-01) or a span back from now (30d)';
      throw new ArchiveError('BAD_TIME', `'${text}' is not a time: a bare number is epoch milliseconds (1700000000000), and ${trimmed} is in ${new Date(ms).getUTCFullYear()} — ${meant}`);
    }
    if (Number.isSafeInteger(ms)) return ms;
  }
  const iso = ISO_TIME.exec(trimmed);
  const isoText = iso ? `${iso[1]}T${iso[2] ?? '00:00:00'}${iso[3] ?? 'Z'}` : '';
  const ms = iso && dateExists(isoText) ? Date.parse(isoText) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new ArchiveError('BAD_TIME', `'${text}' is not a time: use now, today, yesterday, 7d, 12h or 30m (back from now), epoch milliseconds, or a UTC date like 2024-05-01, 2024-05-01T12:00:00Z or "2024-05-01 12:00"`);
  }
  return bound === 'end' && iso?.[2] === undefined ? ms + DAY_MS - 1 : ms;
}

/** `now`, and the UTC days `today` and `yesterday` (as an `end` bound: through the day's last millisecond). */
function namedTime(word: string, now: number, bound: TimeBound): number | undefined {
  if (word === 'now') return now;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const day = word === 'today' ? today : word === 'yesterday' ? today - DAY_MS : undefined;
  if (day === undefined) return undefined;
  return bound === 'end' ? day + DAY_MS - 1 : day;
}

/** Date.parse rolls `2024-02-30` over to March; a date the user typed must exist as written. */
function dateExists(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

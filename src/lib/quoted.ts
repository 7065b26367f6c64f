/** The most characters of a committed value a message quotes. */
export const MAX_QUOTED = 120;

/**
 * A value as a message quotes it (JSON), cut to MAX_QUOTED characters with how long it was: a message quoted a
 * committed value whole, and a 3.9-million-character `tileType`, stored per environment in a daemon's status and its
 * log, ran the daemon out of memory (one `GET /status` answered 468 MB).
 */
export function quoted(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value));
}

/** Text from a commit (a name, a key, a path) as a message shows it unquoted, cut as `quoted` cuts. */
export function excerpt(text: string): string {
  if (text.length <= MAX_QUOTED) return text;
  // Never half of a surrogate pair (an emoji) at the cut.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(MAX_QUOTED - 1)) ? MAX_QUOTED - 1 : MAX_QUOTED;
  return `${text.slice(0, end)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** The most names a message lists. */
const LISTED_NAMES = 20;

/**
 * Known names as a message lists them: the first LISTED_NAMES (each cut as `excerpt` cuts) and how many more. Every
 * unknown name repeating them all made 63 MB of problems from 3,000 committed names, and a dashcd.yaml of 60,000
 * environments and a group of 2,000 unknown ones 938 MB: the daemon ran out of memory at every start.
 */
export function listedNames(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_NAMES).map(excerpt).join(', ');
  return names.length > LISTED_NAMES ? `${shown} and ${(names.length - LISTED_NAMES).toLocaleString('en-US')} more` : shown;
}

/**
 * Text from outside (a target's answers, a third party's events archive, a committer's file names) must not reach a
 * terminal or a CI log raw: an escape sequence could retitle the terminal, move its cursor or overwrite the line
 * that warned about it, and a line break could start a line of its own that the CI runner reads as a workflow
 * command (GitHub Actions takes a line `::error …::`, `::add-mask::…` or `::stop-commands::…` as one).
 *
 * Each control character (C0 with the line breaks and tab, DEL, C1, whose U+009B is an 8-bit CSI), each Unicode
 * line or paragraph separator and each bidirectional formatting character (the overrides, embeddings, isolates and
 * marks with which a name shows its characters in another order than they are: U+202E before `lmth.exe` shows
 * `exe.html`) becomes one space: a field stays one line, as long as it was, and readable. Nothing
 * else changes (accents, emoji, CJK print as they are), and a second pass changes nothing, so text shown twice (a
 * message quoted in another) is never escaped twice. The log's terminal format writes `\u001b` instead
 * (lib/pretty-log.ts): a log line keeps what was there; a command's output keeps its layout.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, ' ');
}

/**
 * `printable` for text of several lines that dashcd itself laid out (an error message with a list under it): its
 * `\n`s stay, anything else that could drive a terminal goes (a lone CR would let the next text overwrite the line).
 * Fields from outside inside such text are made `printable` where they are put in: a line break of theirs would be
 * kept here.
 */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** The characters above, as a character class's contents: the log's terminal format escapes the same ones. */
export const UNPRINTABLE_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';

const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CHARACTERS}]`, 'g');

/** The widest line of `--help` prose: readable on the narrowest terminals people still use beside an editor. */
export const HELP_WIDTH = 100;

/**
 * The words of prose, which a line may break between but never inside: runs of non-spaces (a flag, a URL, a path),
 * with a command quoted in backquotes or as 'dashcd …' kept whole, so it can be copied from one line, and
 * `(default:` kept with the value it introduces.
 */
export function proseWords(text: string): string[] {
  return text.match(/(?:`[^`]*`|'dashcd [^']*'|\(default: |\S)+/g) ?? [];
}

/**
 * `lead` (an indent, or a column such as a flag's name) followed by `text` wrapped to HELP_WIDTH, continuation lines
 * indented by `indent` so they sit under the text.
 */
export function wrapped(lead: string, text: string, indent: number): string[] {
  return wrappedWords(lead, proseWords(text), indent);
}

/** As `wrapped`, of words already split; a word wider than the line stands alone on one, unbroken. */
export function wrappedWords(lead: string, words: readonly string[], indent: number): string[] {
  const lines: string[] = [];
  let line = lead;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = ' '.repeat(indent);
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line.trimEnd());
  return lines;
}

/**
 * A description as wrapped paragraphs: a blank line in the text separates two, and a single newline is only where
 * its author's editor wrapped it, so the text reads the same however the source is wrapped.
 */
export function wrappedParagraphs(text: string): string[] {
  return text.split(/\n\s*\n/).flatMap((paragraph, i) => [...(i > 0 ? [''] : []), ...wrapped('', paragraph, 0)]);
}

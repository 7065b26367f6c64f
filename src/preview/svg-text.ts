/** Text helpers for SVG output: escaping, clipping to a width, and a plain-text excerpt of markdown. */

/** Average advance of the preview's sans-serif, in ems: fits text into tiles without measuring fonts. */
const CHAR_EM = 0.6;

/** How many characters of `fontSize` px text fit in `width` px (at least one, so a clip always shows `…`). */
export function charsFor(width: number, fontSize: number): number {
  return Math.max(1, Math.floor(width / (fontSize * CHAR_EM)));
}

/**
 * Text safe inside an XML element or a double-quoted attribute: markup characters escaped, and the characters XML
 * 1.0 forbids (C0 controls but tab/newline, lone surrogates, U+FFFE/FFFF) replaced, so any name yields valid SVG.
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** At most `max` code points, `…` marking a cut (never inside a surrogate pair). */
export function clip(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  if (chars.length <= max) return chars.join('');
  // Stryker disable next-line EqualityOperator: at max 1 both branches give '…'
  return max <= 1 ? '…'.slice(0, Math.max(0, max)) : `${chars.slice(0, max - 1).join('')}…`;
}

/** Greedy word wrap into at most `maxLines` lines of `width` code points; the last line says when text was cut. */
export function wrap(text: string, width: number, maxLines: number): string[] {
  // Stryker disable next-line ConditionalExpression: a shortcut: without width every word clips to '' and no line is kept; without lines none is listed
  if (width < 1 || maxLines < 1) return [];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (Array.from(candidate).length <= width) line = candidate;
    else {
      if (line !== '') lines.push(line);
      line = clip(word, width);
    }
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = clip(`${kept[maxLines - 1] ?? ''} …`, width);
  return kept;
}

/**
 * Of a markdown tile's text, what an excerpt reads: a tile shows a few lines of it, at most a few hundred characters.
 * The markdown is a committer's or any writer's of the target, and the console draws it at every view.
 */
export const EXCERPT_SOURCE_CHARS = 4096;

/**
 * What a reader sees of a markdown tile, as plain text: links and images keep their text, emphasis, heading and
 * list markers and code fences go. Not a markdown parser; enough to recognise a tile at a glance. Only the first
 * EXCERPT_SOURCE_CHARS are read, and no pattern's class takes its own opening character: over a tile of 100,000 `<`
 * the tag pattern rescanned the rest of the text from each one (11 s for one tile, at each view of the console).
 */
export function markdownExcerpt(markdown: string): string {
  return markdown
    .slice(0, EXCERPT_SOURCE_CHARS)
    .replace(/```[^\n]*\n?/g, '')
    // A link's address may hold one level of parentheses (`wiki/Foo_(bar)`); either alternative starts differently.
    .replace(/!\[([^[\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/\[([^[\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.|>)\s+/gm, '')
    // Single `*`/`_` stay: they are as often part of a name (snake_case, a*b) as emphasis.
    .replace(/(\*\*|__|`|~~)/g, '')
    .replace(/<[^<>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

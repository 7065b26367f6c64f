import { CST, Lexer } from 'yaml';

/** An unquoted `${{ … }}` inside a flow collection: where it starts, and the plain scalar that holds it. */
export interface FlowTemplate {
  /** Offset of `${{` in the source. */
  offset: number;
  /** The `${{ … }}` as written. */
  template: string;
  /** The whole plain scalar holding it (`x-${{ env.name }}-eu`): what quoting it would wrap. */
  scalar: { start: number; end: number };
}

// Lexer tokens that mark what follows and stand for no source text.
const MARKERS = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * Unquoted templates inside `{ … }` or `[ … ]`. There a plain scalar cannot hold `{`, so `height: ${{ values.h }}`
 * reads as `$` followed by two flow mappings, and `yaml` reports a dozen errors about braces instead of the one
 * mistake. Only in flow context does the lexer end a plain scalar at `{`, so a token ending in `$` right before
 * `{`, `{` is such a template (in block context `${{ … }}` stays inside its scalar and is fine).
 */
export function unquotedFlowTemplates(source: string): FlowTemplate[] {
  const tokens = [...new Lexer().lex(source)];
  const closeOnLine = templateCloser(source);
  const found: FlowTemplate[] = [];
  let offset = 0;
  for (const [i, token] of tokens.entries()) {
    if (MARKERS.has(token)) continue;
    if (token.endsWith('$') && tokens[i + 1] === '{' && tokens[i + 2] === '{') {
      const at = offset + token.length - 1;
      const close = closeOnLine(at);
      const previous = found[found.length - 1];
      // A second template in the same scalar is part of the first one's quoting.
      if (close !== -1 && (previous === undefined || previous.scalar.end <= at)) found.push({ offset: at, template: source.slice(at, close + 2), scalar: { start: offset, end: scalarEnd(source, close + 2, closeOnLine) } });
    }
    offset += token.length;
  }
  return found;
}

/** Where the plain scalar continuing after a template ends: at a flow indicator, a line end or ` #`; spaces trimmed. */
function scalarEnd(source: string, from: number, closeOnLine: (from: number) => number): number {
  let end = from;
  while (end < source.length && !/[,\]}\n\r]/.test(source[end] as string) && !source.startsWith(' #', end)) {
    if (source.startsWith('${{', end)) {
      const close = closeOnLine(end);
      if (close === -1) break;
      end = close + 2;
    } else end++;
  }
  while (end > from && source[end - 1] === ' ') end--;
  return end;
}

/**
 * Where the `}}` closing a template opened at `from` is, on its line (-1 when it is not closed there). The next `}}`
 * and the next line end are found once and kept while later offsets are asked: searched afresh from each of 30,000
 * unclosed templates on one line, `indexOf` ran to the file's end each time (6.6 s of a daemon pass for 270 kB).
 */
function templateCloser(source: string): (from: number) => number {
  const nextClose = nextOf(source, '}}');
  const nextLineEnd = nextOf(source, '\n');
  return (from) => {
    const close = nextClose(from);
    const eol = nextLineEnd(from);
    return close === -1 || (eol !== -1 && close > eol) ? -1 : close;
  };
}

/** `source.indexOf(text, from)`, the last answer kept for every `from` it still answers (none before it is skipped). */
function nextOf(source: string, text: string): (from: number) => number {
  let askedFrom = Number.POSITIVE_INFINITY;
  let found = -1;
  return (from) => {
    const stillFound = from >= askedFrom && (found === -1 || from <= found);
    if (!stillFound) {
      askedFrom = from;
      found = source.indexOf(text, from);
    }
    return found;
  };
}

/** The source with each such scalar quoted, as the user is told to write it (JSON quoting is valid YAML). */
export function quoteFlowTemplates(source: string, found: readonly FlowTemplate[]): string {
  let out = '';
  let at = 0;
  for (const { scalar } of found) {
    out += source.slice(at, scalar.start) + JSON.stringify(source.slice(scalar.start, scalar.end));
    at = scalar.end;
  }
  return out + source.slice(at);
}

export function flowTemplateMessage(found: FlowTemplate): string {
  return `a template inside a flow collection ({ … } or [ … ]) must be quoted: write "${found.template.replace(/"/g, '\\"')}" (in quotes a whole-value template still gives a number or an object)`;
}

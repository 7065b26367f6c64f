import { escapeXml } from './svg-text.js';

export interface HtmlSection {
  heading: string;
  /** A preview SVG (already escaped inside), inlined as is. */
  svg?: string;
  /** Plain text lines shown in a block under the picture (a plan's diff). */
  lines?: readonly string[];
}

/**
 * One self-contained page: inline CSS and inline SVG, no script, no external address, so it opens offline, from an
 * artifact download or a file:// URL. Pure: same sections, same bytes.
 */
export function renderHtmlPage(title: string, intro: readonly string[], sections: readonly HtmlSection[]): string {
  const body = sections.map((s) => {
    const picture = s.svg ? `<div class="picture">${s.svg}</div>` : '';
    const lines = s.lines && s.lines.length > 0 ? `<pre class="diff">${s.lines.map(diffLine).join('\n')}</pre>` : '';
    return `<section><h2>${escapeXml(s.heading)}</h2>\n${picture}\n${lines}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)}</title>
<style>${PAGE_CSS}</style></head>
<body><h1>${escapeXml(title)}</h1>
${intro.map((p) => `<p>${escapeXml(p)}</p>`).join('\n')}
${body.join('\n')}
</body></html>
`;
}

/** One diff line coloured by its mark (`+` added, `-` removed, `~` changed). */
export function diffLine(line: string): string {
  const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'remove' : line.startsWith('~') ? 'change' : 'other';
  return `<span class="${kind}">${escapeXml(line)}</span>`;
}

export const PAGE_CSS = `body{font-family:system-ui,sans-serif;margin:1rem;color:#24292f}
.picture svg{max-width:100%;height:auto;border:1px solid #d0d7de}
pre.diff{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.add{color:#1a7f37}.remove{color:#cf222e}.change{color:#9a6700}section{margin:1.5rem 0}`;

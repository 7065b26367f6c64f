import { escapeXml } from './svg-text.js';

export interface HtmlSection {
  heading: string;
  /** Paragraphs under the heading (an environment's target and summary). */
  intro?: readonly string[];
  /** A preview SVG (already escaped inside), inlined as is. */
  svg?: string;
  /** Plain text lines shown in a block under the picture (a plan's diff). */
  lines?: readonly string[];
  /** Sections inside this one, a heading level deeper (an environment's dashboards). */
  sections?: readonly HtmlSection[];
  /** `data-env` of the section, so a reader (or a test) finds an environment's part. */
  env?: string;
}

/**
 * One self-contained page: inline CSS and inline SVG, no script, no external address, so it opens offline, from an
 * artifact download or a file:// URL. Pure: same sections, same bytes.
 */
export function renderHtmlPage(title: string, intro: readonly string[], sections: readonly HtmlSection[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)}</title>
<style>${PAGE_CSS}</style></head>
<body><h1>${escapeXml(title)}</h1>
${paragraphs(intro)}
${sections.map((s) => sectionHtml(s, 2)).join('\n')}
</body></html>
`;
}

function sectionHtml(s: HtmlSection, level: number): string {
  const picture = s.svg ? `<div class="picture">${s.svg}</div>` : '';
  const lines = s.lines && s.lines.length > 0 ? `<pre class="diff">${s.lines.map(diffLine).join('\n')}</pre>` : '';
  const inner = (s.sections ?? []).map((child) => sectionHtml(child, Math.min(6, level + 1)));
  const env = s.env === undefined ? '' : ` data-env="${escapeXml(s.env)}"`;
  return [`<section${env}><h${level}>${escapeXml(s.heading)}</h${level}>`, paragraphs(s.intro ?? []), picture, lines, ...inner, '</section>'].filter((l) => l !== '').join('\n');
}

function paragraphs(texts: readonly string[]): string {
  return texts.map((p) => `<p>${escapeXml(p)}</p>`).join('\n');
}

/** One diff line coloured by its mark (`+` added, `-` removed, `~` changed). */
export function diffLine(line: string): string {
  const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'remove' : line.startsWith('~') ? 'change' : 'other';
  return `<span class="${kind}">${escapeXml(line)}</span>`;
}

export const PAGE_CSS = `body{font-family:system-ui,sans-serif;margin:1rem;color:#24292f}
.picture svg{max-width:100%;height:auto;border:1px solid #d0d7de}
pre.diff{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.add{color:#1a7f37}.remove{color:#cf222e}.change{color:#9a6700}section{margin:1.5rem 0}`;

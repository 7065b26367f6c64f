import { escapeXml } from '../preview/svg-text.js';

/** Text into HTML (element content or a quoted attribute). */
export const h = escapeXml;

export function envPath(env: string, rest = ''): string {
  return `/ui/e/${encodeURIComponent(env)}${rest}`;
}

/**
 * Every console page: inline CSS, no script and no external address, so it works offline and a strict CSP holds.
 * One column on a phone; tables turn into stacked cards under 700 px.
 */
export function page(title: string, env: string | undefined, body: string): string {
  const nav = [`<a href="/ui">Environments</a>`];
  if (env !== undefined) nav.push(`<a href="${envPath(env)}">Dashboards</a>`, `<a href="${envPath(env, '/events')}">Events</a>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)} · dashcd</title><style>${CSS}</style></head>
<body><header><strong>dashcd</strong>${env === undefined ? '' : ` <span class="env">${h(env)}</span>`}<nav>${nav.join('')}</nav></header>
<main><h1>${h(title)}</h1>
${body}
</main></body></html>
`;
}

const CSS = `*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#24292f;background:#fff}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;background:#24292f;color:#fff}
header nav{display:flex;gap:1rem;margin-left:auto}header a{color:#fff}.env{background:#57606a;border-radius:1rem;padding:0 .6rem}
main{max-width:1400px;margin:0 auto;padding:1rem}h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
code{font-size:.9em;word-break:normal;overflow-wrap:break-word}.status{display:inline-block;border-radius:1rem;padding:0 .6rem;font-size:.85em;color:#fff;background:#57606a}
.status-synced{background:#1a7f37}.status-drifted{background:#9a6700}.status-invalid{background:#cf222e}.status-orphan{background:#6e7781}.status-failed{background:#a40e26}.status-live{background:#0969da}
.counts{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:1rem}.counts a{text-decoration:none}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:1rem}.card{border:1px solid #d0d7de;border-radius:6px;padding:.8rem}
.picture svg{max-width:100%;height:auto;border:1px solid #d0d7de;display:block}
pre.diff{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.add{color:#1a7f37}.remove{color:#cf222e}.change{color:#9a6700}.problems li{margin:.3rem 0}
.timeline{margin:0 0 1rem}.timeline svg{width:100%;height:120px;border:1px solid #d0d7de;display:block}.legend{font-size:.85em}
.chart{display:flex;gap:.4rem}.plot{flex:1;min-width:0}.y-axis,.x-axis{position:relative;font-size:.75rem;line-height:1;color:#57606a}
.y-axis{flex:none;width:2.2rem;height:120px}.y-axis .tick{position:absolute;right:0;transform:translateY(50%)}
.x-axis{height:1.4em}.x-axis .tick{position:absolute;top:.35em;transform:translateX(-50%);white-space:nowrap}
.x-axis .tick::before{content:"";position:absolute;left:50%;top:-.35em;height:.25em;border-left:1px solid #8c959f}
.card .counts{margin:.4rem 0}.card{min-width:0}
.key{white-space:nowrap}.key i{display:inline-block;width:.8em;height:.8em;margin:0 .25em 0 .5em;vertical-align:middle}
form.filter{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:1rem 0}form.filter label{display:flex;flex-direction:column;font-size:.85em}
input,select,button{font:inherit;padding:.3rem}.muted{color:#57606a}
@media (max-width:700px){table.stack thead{display:none}table.stack tr{display:block;border:1px solid #d0d7de;border-radius:6px;margin-bottom:.6rem;padding:.3rem}
table.stack td{display:block;border:0;padding:.15rem .4rem}table.stack td[data-label]::before{content:attr(data-label) ": ";color:#57606a}
.x-axis .tick:nth-child(even){display:none}}`;

/** GitHub refuses a comment longer than this many characters. */
export const COMMENT_LIMIT = 65_536;

export interface BudgetInput {
  /** Heading, notes and the table of every dashboard: always kept (cut only if it alone is over the limit). */
  head: string;
  /** One per update/adoption, in plan order: the whole diff, and the few lines that replace it when out of room. */
  diffs: readonly { full: string; short: string }[];
  /** Where to read the whole plan (already Markdown). */
  fullPlan: string;
}

/**
 * The comment within COMMENT_LIMIT (counted in UTF-16 code units, as GitHub's limit is, which never
 * undercounts characters). Every diff first gets room for its short form; the rest of the budget goes to whole
 * diffs in plan order, so the earliest dashboards show their changes and the others say they were shortened.
 */
export function fitToBudget({ head, diffs, fullPlan }: BudgetInput): string {
  const note = (shortened: number): string =>
    `\n\n**${shortened} of ${diffs.length} diff${diffs.length === 1 ? '' : 's'} shortened** to fit a pull-request comment (${COMMENT_LIMIT.toLocaleString('en-US')} characters). The full plan: ${fullPlan}.\n`;
  const reserve = note(diffs.length).length + 1;
  const headPart = head.length + reserve > COMMENT_LIMIT ? cutHead(head, COMMENT_LIMIT - reserve) : head;
  let room = COMMENT_LIMIT - headPart.length - reserve;
  // Short forms first, in order, while they fit (thousands of updates may not all fit even so)...
  const listed: { full: string; short: string }[] = [];
  for (const d of diffs) {
    if (d.short.length + 1 > room) break;
    room -= d.short.length + 1;
    listed.push(d);
  }
  // ...then whole diffs in their place, in order, while the rest of the budget lasts.
  let whole = 0;
  const parts = listed.map((d) => {
    const extra = d.full.length - d.short.length;
    if (extra > room) return d.short;
    room -= extra;
    whole++;
    return d.full;
  });
  const shortened = diffs.length - whole;
  const body = [headPart, ...parts].join('\n');
  return shortened > 0 ? `${body}${note(shortened)}` : `${body}\n`;
}

/** Last resort for thousands of dashboards: whole lines of the head, then how many were left out. */
function cutHead(head: string, limit: number): string {
  const lines = head.split('\n');
  const kept: string[] = [];
  let size = 0;
  const tail = (left: number): string => `\n| … | ${left} more rows not shown | |`;
  for (const [i, line] of lines.entries()) {
    if (size + line.length + 1 + tail(lines.length - i).length > limit) return kept.join('\n') + tail(lines.length - i);
    kept.push(line);
    size += line.length + 1;
  }
  return kept.join('\n');
}

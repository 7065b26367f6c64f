import { LiveDashboard } from '../schema/dashboard.js';

export const METADATA_MEMBER = '"dashboardMetadata":';

/**
 * Whether a live dashboard's JSON text is exactly what apply wrote from this body text, so the plan can call it
 * unchanged without parsing 15 KB of JSON and walking the result (at 10,000 dashboards that was a second and a
 * half of the plan's one busy thread). Holds for a target that returns members as they were written, after its own
 * `metadata` and `id`, as the embedded server does. Precisely: the text is the server's `metadata`/`id` members,
 * then `dashboardMetadata` whose tags end with the ownership tag (once), then exactly the body's remaining text;
 * and `dashboardMetadata` without that tag serialises to the body's. Then the live dashboard equals the body with
 * the tag appended, which is what sameContent (build-plan.ts) compares. Anything else answers false and is left to
 * the full comparison; a target that orders members its own way just never takes this path.
 */
export function isWrittenText(liveText: string, bodyJson: string, tag: string): boolean {
  const at = liveText.indexOf(`,${METADATA_MEMBER}{`);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: clarity only; a text without the member has no head that parses to the server's members alone
  if (at < 0 || !isServerHead(liveText.slice(0, at))) return false;
  const start = at + 1 + METADATA_MEMBER.length;
  const end = objectEnd(liveText, start);
  const metadata = parseObject(liveText.slice(start, end));
  const untagged = metadata === undefined ? undefined : withoutWrittenTag(metadata, tag);
  // Stryker disable next-line ConditionalExpression: clarity only; JSON text never reads `{"dashboardMetadata":undefined`
  return untagged !== undefined && bodyJson === `{${METADATA_MEMBER}${JSON.stringify(untagged)}${liveText.slice(end)}`;
}

/**
 * `dashboardMetadata` as the body had it before apply appended the tag, when its tags end with the tag and hold it
 * nowhere else; a lone tag was written with its list, which goes with it. Undefined when apply cannot have written
 * these tags from a body without the tag.
 */
export function withoutWrittenTag(metadata: Record<string, unknown>, tag: string): Record<string, unknown> | undefined {
  const { tags } = metadata;
  if (!Array.isArray(tags) || tags.length === 0 || tags.indexOf(tag) !== tags.length - 1) return undefined;
  if (tags.length > 1) return { ...metadata, tags: tags.slice(0, -1) };
  const { tags: _lone, ...rest } = metadata;
  return rest;
}

const ServerMembers = LiveDashboard.pick({ id: true, metadata: true });

/**
 * `{"metadata":…,"id":"…"` and nothing else, as a GET's schema takes them: the server's own members, cut where
 * `dashboardMetadata` starts. At least one, so the text joins them to `dashboardMetadata` with a comma that belongs.
 */
function isServerHead(head: string): boolean {
  const parsed = parseObject(`${head}}`);
  if (parsed === undefined) return false;
  const keys = Object.keys(parsed);
  return keys.length > 0 && keys.every((key) => key === 'metadata' || key === 'id') && ServerMembers.safeParse(parsed).success;
}

/** Only ever given text that starts with `{`: it parses to an object or not at all. */
// Stryker disable BlockStatement: an empty catch returns undefined all the same
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
// Stryker restore BlockStatement

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]);
const CLOSERS = new Set([0x7d, 0x5d]);

/**
 * The index just past the object that starts at `start`, skipping strings; the text's length when it never closes.
 * Malformed text gives some index whose slice then fails to parse, which answers false above.
 */
export function objectEnd(text: string, start: number): number {
  let depth = 0;
  // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which is neither a quote nor a bracket
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Stryker disable next-line EqualityOperator: as above
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (OPENERS.has(code)) {
      depth++;
    } else if (CLOSERS.has(code) && --depth === 0) {
      return i + 1;
    }
  }
  return text.length;
}

import { withOwnershipTag } from '../dashboards/ownership.js';
import type { WrittenBody } from '../plan/build-plan.js';
import { METADATA_MEMBER, objectEnd } from '../plan/written-text.js';
import type { Dashboard } from '../schema/dashboard.js';

/**
 * What apply writes for a classic dashboard: the id first (as the real service's clients send it), then the file's
 * body without `id` and `metadata`, its tags ending with the ownership tag (added once).
 */
export function writtenDashboard(id: string, body: Dashboard, tag: string): Dashboard {
  const { id: _fileId, metadata: _serverOwned, ...rest } = withOwnershipTag(body, tag);
  return { id, ...rest } as Dashboard;
}

/**
 * The written body made from the file's body text (the loader's `bodyJson`): its JSON text spliced from that text,
 * only `dashboardMetadata` parsed to add the tag, and the object parsed from it only if something reads it. A create
 * is then sent without decoding and encoding its body again (at 1,000 dashboards of 18 KB that was a third of a
 * second of apply's one busy thread). Undefined for a text that does not start with `dashboardMetadata`, which the
 * caller writes from the parsed body.
 */
export function writtenFromText(id: string, bodyJson: string, tag: string): (WrittenBody & { kind?: undefined; json: string }) | undefined {
  const start = 1 + METADATA_MEMBER.length;
  if (!bodyJson.startsWith(`{${METADATA_MEMBER}{`)) return undefined;
  const end = objectEnd(bodyJson, start);
  // The loader's text is JSON.stringify's: its metadata object closes before the text ends, and the cut parses.
  if (end >= bodyJson.length) return undefined;
  const metadata = JSON.parse(bodyJson.slice(start, end)) as Dashboard['dashboardMetadata'];
  const { dashboardMetadata } = withOwnershipTag({ dashboardMetadata: metadata } as Dashboard, tag);
  const json = `{"id":${JSON.stringify(id)},${METADATA_MEMBER}${JSON.stringify(dashboardMetadata)}${bodyJson.slice(end)}`;
  let parsed: Dashboard | undefined;
  return {
    json,
    get desired(): Dashboard {
      return (parsed ??= JSON.parse(json) as Dashboard);
    },
  };
}

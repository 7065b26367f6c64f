import { Dashboard } from '../../schema/dashboard.js';
import type { DashboardId } from '../../schema/ids.js';
import { parseJsonText } from '../http/read-body.js';
import type { ServedBytes, ServedBytesCache } from './served-bytes.js';

/** What GET reports as `metadata.clusterVersion`: the embedded service names itself. */
export const DEFAULT_CLUSTER_VERSION = 'dashcd-0.1.0';

/** A validated request body: the caller's original object, never zod's (reordered) output. */
export type DashboardBody = Readonly<Record<string, unknown>>;

/** One stored dashboard as the index holds it: list fields plus the exact bytes GET sends. */
export interface DashboardRecord {
  readonly id: DashboardId;
  readonly version: number;
  readonly name: string;
  readonly owner: string;
  readonly tags: readonly string[];
  /** Compact JSON of the whole document: served as-is, so a GET does no serialisation. */
  readonly served: ServedBytes;
}

/**
 * The stored (and served) document: server-owned `metadata` and `id` first, as the real service orders them, then
 * every other member of the caller's body in its original order and unchanged. Client-sent `id`/`metadata` are
 * replaced, never merged.
 */
export function buildDocument(
  id: DashboardId,
  version: number,
  body: DashboardBody,
  clusterVersion: string,
): Record<string, unknown> {
  const document: Record<string, unknown> = {
    metadata: {
      clusterVersion,
      configurationVersions: [version],
      currentConfigurationVersions: [String(version)],
    },
    id,
  };
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'id' && key !== 'metadata') document[key] = value;
  }
  return document;
}

/** A document serialised once: the compact bytes GET serves and the file text, built from the same pieces. */
export interface SerialisedDocument {
  readonly bytes: Buffer;
  readonly fileText: string;
}

/**
 * Each top-level member is stringified once, compactly; the served bytes join the pieces, the file text puts one
 * member per line and one element per line for top-level arrays (tiles), so the data dir stays readable and a
 * changed tile is a one-line diff. Full pretty-printing cost more than the rest of a PUT's serialisation.
 */
export function serialise(document: Record<string, unknown>): SerialisedDocument {
  const compact: string[] = [];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (value === undefined) continue;
    const name = JSON.stringify(key);
    if (Array.isArray(value) && value.length > 0) {
      const items = value.map((item: unknown) => JSON.stringify(item) ?? 'null');
      compact.push(`${name}:[${items.join(',')}]`);
      lines.push(`  ${name}: [\n    ${items.join(',\n    ')}\n  ]`);
    } else {
      const text = JSON.stringify(value);
      if (text === undefined) continue;
      compact.push(`${name}:${text}`);
      lines.push(`  ${name}: ${text}`);
    }
  }
  return { bytes: Buffer.from(`{${compact.join(',')}}`), fileText: `{\n${lines.join(',\n')}\n}\n` };
}

export function recordOf(id: DashboardId, version: number, document: Record<string, unknown>, served: ServedBytes): DashboardRecord {
  const meta = document['dashboardMetadata'] as { name?: unknown; owner?: unknown; tags?: unknown };
  return {
    id,
    version,
    name: typeof meta.name === 'string' ? meta.name : '',
    owner: typeof meta.owner === 'string' ? meta.owner : '',
    tags: Array.isArray(meta.tags) ? meta.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    served,
  };
}

export type LoadedDocument =
  | { readonly ok: true; readonly record: DashboardRecord }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a stored file back. Anything that is not a whole, valid dashboard for this id is reported as damaged, so
 * a half-written or hand-broken file is never served. A file without `metadata` (placed by hand) starts at
 * version 1; one whose `id` names another dashboard is refused as ambiguous.
 */
export function loadDocument(id: DashboardId, text: string, clusterVersion: string, cache: ServedBytesCache): LoadedDocument {
  if (text.length === 0) return { ok: false, reason: 'empty file' };
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'unreadable JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const body = parsed as Record<string, unknown>;
  const fileId = body['id'];
  if (fileId !== undefined && fileId !== '' && (typeof fileId !== 'string' || fileId.toLowerCase() !== id)) {
    return { ok: false, reason: `id ${JSON.stringify(fileId)} does not match the file name` };
  }
  const check = Dashboard.safeParse(body);
  if (!check.success) return { ok: false, reason: `invalid dashboard: ${check.error.issues[0]?.message ?? ''}` };
  const version = storedVersion(body['metadata']);
  const document = buildDocument(id, version, body, clusterVersion);
  return { ok: true, record: recordOf(id, version, document, cache.admit(serialise(document).bytes)) };
}

function storedVersion(metadata: unknown): number {
  const versions = (metadata as { configurationVersions?: unknown } | null | undefined)?.configurationVersions;
  const first = Array.isArray(versions) ? (versions[0] as unknown) : undefined;
  return typeof first === 'number' && Number.isSafeInteger(first) && first > 0 ? first : 1;
}

import { Dashboard } from '../../schema/dashboard.js';
import type { DashboardId } from '../../schema/ids.js';
import { parseJsonText } from '../http/read-body.js';
import type { CanonicalText } from '../http/plain-json.js';
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

/** Members serialised once: `compact` joins them for the served bytes, `lines` for the file text ('' for none). */
export interface SerialisedMembers {
  readonly compact: string;
  readonly lines: string;
}

/**
 * SerialisedMembers as UTF-8, both views on one ArrayBuffer of their own: a worker thread hands them over without a
 * copy, and the main thread only copies bytes into the served document and the file (no string to flatten, encode
 * twice, or checksum through an encoding: bench `put`).
 */
export interface EncodedMembers {
  readonly compact: Uint8Array;
  readonly lines: Uint8Array;
}

/**
 * A validated body ready to be stored under any id and version: its own members serialised, in their original order
 * and unchanged (a client-sent `id` or `metadata` is left out: the server's replace them, never merged), and the
 * fields the list endpoint filters on. Plain data, so it can be made on a worker thread.
 */
export interface PreparedDashboard {
  readonly members: EncodedMembers;
  readonly name: string;
  readonly owner: string;
  readonly tags: readonly string[];
}

/**
 * `canonical`, when given, is the text the body was parsed from, spelled exactly as JSON.stringify writes it, with
 * where its members lie (plain-json.ts): the members are then sliced from it, byte for byte what serialising the body
 * would give.
 */
export function prepareDashboard(body: DashboardBody, canonical?: CanonicalText): PreparedDashboard {
  const meta = (body['dashboardMetadata'] ?? {}) as { name?: unknown; owner?: unknown; tags?: unknown };
  return {
    members: encodeMembers(canonical ? slicedMembers(canonical) : serialiseMembers(Object.entries(body).filter(([key]) => !SERVER_OWNED.has(key)))),
    name: typeof meta.name === 'string' ? meta.name : '',
    owner: typeof meta.owner === 'string' ? meta.owner : '',
    tags: Array.isArray(meta.tags) ? meta.tags.filter((tag): tag is string => typeof tag === 'string') : [],
  };
}

function encodeMembers({ compact, lines }: SerialisedMembers): EncodedMembers {
  // Slow: not a slice of Buffer's shared pool, which a transfer to another thread would take away from every Buffer.
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(compact) + Buffer.byteLength(lines));
  const split = bytes.write(compact);
  bytes.write(lines, split);
  // Plain views, as a worker's answer arrives: the same value on either thread.
  return { compact: new Uint8Array(bytes.buffer, 0, split), lines: new Uint8Array(bytes.buffer, split) };
}

/** The buffers to transfer with a prepared dashboard posted to another thread. */
export const transferablesOf = ({ members }: PreparedDashboard): ArrayBuffer[] => [...new Set([members.compact.buffer, members.lines.buffer])] as ArrayBuffer[];

/** A document serialised once: the compact bytes GET serves and the file. */
export interface SerialisedDocument {
  readonly bytes: Buffer;
  readonly file: Buffer;
}

/**
 * The stored (and served) document of one version: server-owned `metadata` and `id` first, as the real service
 * orders them, then the body's own members.
 */
export function serialiseDocument(id: DashboardId, version: number, clusterVersion: string, body: PreparedDashboard): SerialisedDocument {
  const head = documentHead(id, version, clusterVersion);
  return { bytes: servedOf(head, body), file: enclose(`{\n${head.lines}`, ',\n', body.members.lines, '\n}\n') };
}

/** Only the bytes GET serves: a stored file loaded at start is already on disk, so its file is not made again. */
export function servedDocument(id: DashboardId, version: number, clusterVersion: string, body: PreparedDashboard): Buffer {
  return servedOf(documentHead(id, version, clusterVersion), body);
}

function documentHead(id: DashboardId, version: number, clusterVersion: string): SerialisedMembers {
  const metadata = { clusterVersion, configurationVersions: [version], currentConfigurationVersions: [String(version)] };
  return serialiseMembers([['metadata', metadata], ['id', id]]);
}

const servedOf = (head: SerialisedMembers, body: PreparedDashboard): Buffer => enclose(`{${head.compact}`, ',', body.members.compact, '}');

/** `open`, then `separator` and `members` unless there are none, then `close`, in one buffer. */
function enclose(open: string, separator: string, members: Uint8Array, close: string): Buffer {
  const start = members.length === 0 ? open : `${open}${separator}`;
  const at = Buffer.byteLength(start);
  // Slow: a small document sliced from Buffer's shared pool would keep the whole 8 KB pool slab alive for as long as
  // its served bytes stay hot, beyond what the cache's budget counts.
  const out = Buffer.allocUnsafeSlow(at + members.length + close.length);
  out.write(start);
  out.set(members, at);
  out.write(close, at + members.length);
  return out;
}

/**
 * Each member is stringified once, compactly; the served bytes join the pieces, the file text puts one member per
 * line and one element per line for arrays (tiles), so the data dir stays readable and a changed tile is a one-line
 * diff. Full pretty-printing cost more than the rest of a PUT's serialisation.
 */
export function serialiseMembers(members: Iterable<readonly [string, unknown]>): SerialisedMembers {
  const compact: string[] = [];
  const lines: string[] = [];
  for (const [key, value] of members) {
    const name = JSON.stringify(key);
    if (Array.isArray(value) && value.length > 0) {
      const items = value.map((item: unknown) => JSON.stringify(item) ?? 'null');
      compact.push(`${name}:[${items.join(',')}]`);
      lines.push(elementLines(name, items));
    } else {
      const text = JSON.stringify(value);
      if (text === undefined) continue;
      compact.push(`${name}:${text}`);
      lines.push(`  ${name}: ${text}`);
    }
  }
  return { compact: compact.join(','), lines: lines.join(',\n') };
}

const elementLines = (name: string, items: readonly string[]): string => `  ${name}: [\n    ${items.join(',\n    ')}\n  ]`;

/** The members the server writes itself: a body's own are left out. */
const SERVER_OWNED = new Set(['id', 'metadata']);
const SERVER_OWNED_NAMES = new Set([...SERVER_OWNED].map((key) => JSON.stringify(key)));

/** serialiseMembers' output, cut from a canonical text instead of made again (~60 of a PUT's ~400 µs of CPU). */
function slicedMembers({ text, layout: { members } }: CanonicalText): SerialisedMembers {
  const compact: string[] = [];
  const lines: string[] = [];
  for (const { start, colon, end, elements } of members) {
    const name = text.slice(start, colon);
    if (SERVER_OWNED_NAMES.has(name)) continue;
    compact.push(text.slice(start, end));
    if (!elements) {
      lines.push(`  ${name}: ${text.slice(colon + 1, end)}`);
      continue;
    }
    lines.push(elementLines(name, elements.map(([from, to]) => text.slice(from, to))));
  }
  return { compact: compact.join(','), lines: lines.join(',\n') };
}

export function recordOf(id: DashboardId, version: number, body: PreparedDashboard, served: ServedBytes): DashboardRecord {
  return { id, version, name: body.name, owner: body.owner, tags: body.tags, served };
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
  const prepared = prepareDashboard(body);
  return { ok: true, record: recordOf(id, version, prepared, cache.admit(servedDocument(id, version, clusterVersion, prepared))) };
}

function storedVersion(metadata: unknown): number {
  const versions = (metadata as { configurationVersions?: unknown } | null | undefined)?.configurationVersions;
  const first = Array.isArray(versions) ? (versions[0] as unknown) : undefined;
  return typeof first === 'number' && Number.isSafeInteger(first) && first > 0 ? first : 1;
}

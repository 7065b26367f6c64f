import type { z } from 'zod';
import { closedSetMessage } from './hints.js';
import { DOCUMENT_KEY, DocumentKind } from '../schema/document-content.js';

export type FilePath = (string | number)[];

/**
 * Which kind a parsed file of the dashboards folder is. Unknown comes with the reason, said as the fix, and the
 * path of the member at fault (`[]`: the file as a whole), for `file:line:col`.
 */
export type FileKind =
  | { kind: 'classic-dashboard' }
  | { kind: 'platform-dashboard' }
  | { kind: 'notebook' }
  | { kind: 'unknown'; reason: string; path: FilePath };

const KIND_OF_DOCUMENT = { dashboard: 'platform-dashboard', notebook: 'notebook' } as const;

export const NOT_A_DOCUMENT =
  'not a dashboard or notebook: expected dashboardMetadata and tiles (a classic dashboard), or a document: member (a platform dashboard or notebook)';

/**
 * A `document:` member makes a file a platform document, of the kind it names; otherwise `dashboardMetadata` or a
 * `tiles` list makes it a classic dashboard. The content decides nothing alone: an app's download without
 * `document:` is refused with what to add (its name cannot be guessed), and a `kind` the content contradicts (a
 * notebook's sections under `kind: dashboard`) is refused rather than validated as the wrong kind.
 */
export function detectFileKind(value: unknown): FileKind {
  if (!isPlain(value)) return unknown(`${NOT_A_DOCUMENT} (the file does not hold a mapping)`, []);
  if (Object.hasOwn(value, DOCUMENT_KEY)) return fromBlock(value);
  if (isClassicShaped(value)) return { kind: 'classic-dashboard' };
  const shape = contentShape(value);
  if (shape === undefined) return unknown(NOT_A_DOCUMENT, []);
  return unknown(`${CONTENT_OF[shape]} without the document: member dashcd needs; add document: { kind: ${shape}, name: … }`, []);
}

const CONTENT_OF: Record<DocumentKind, string> = {
  dashboard: "a platform dashboard's content (tiles and layouts maps)",
  notebook: "a notebook's content (sections)",
};

/**
 * Whether a parsed file is for the document checks (document-check.ts) rather than the classic ones: it has a
 * `document:` member, or, without classic members, a document's content (a download missing `document:`, which
 * those checks refuse with what to add). Anything else, a file that is no mapping included, is the classic checks'.
 */
export function isDocumentShaped(value: unknown): boolean {
  if (!isPlain(value)) return false;
  if (Object.hasOwn(value, DOCUMENT_KEY)) return true;
  return !isClassicShaped(value) && contentShape(value) !== undefined;
}

const CLASSIC_WITH_DOCUMENT = 'the file holds a classic dashboard (dashboardMetadata, a list of tiles)';

/** A classic dashboard's own members: dashboardMetadata, or tiles as a list (a platform dashboard's are a map). */
function isClassicShaped(value: Record<string, unknown>): boolean {
  return Object.hasOwn(value, 'dashboardMetadata') || Array.isArray(value.tiles);
}

/** What the content looks like: tiles or layouts as maps are a platform dashboard's, a list of sections a notebook's. */
function contentShape(value: Record<string, unknown>): DocumentKind | undefined {
  if (isPlain(value.tiles) || isPlain(value.layouts)) return 'dashboard';
  if (Array.isArray(value.sections)) return 'notebook';
  return undefined;
}

function fromBlock(value: Record<string, unknown>): FileKind {
  const block = value[DOCUMENT_KEY];
  if (!isPlain(block)) return unknown('document: must be a mapping with kind (dashboard or notebook) and name', [DOCUMENT_KEY]);
  const parsed = DocumentKind.safeParse(block.kind);
  if (!parsed.success) {
    // A failed parse has at least one issue.
    const why = closedSetMessage(parsed.error.issues[0] as z.core.$ZodIssue, block.kind);
    return unknown(why ?? `expected ${DocumentKind.options.join(' or ')}`, [DOCUMENT_KEY, 'kind']);
  }
  const shape = contentShape(value);
  // A classic dashboard with document: added would meet the document schema's raw complaints (version missing, tiles
  // not a map): the mix-up is named instead, as the reverse ones are. Content of a document's shape beside it wins.
  if (isClassicShaped(value) && shape === undefined) return unknown(`${CLASSIC_WITH_DOCUMENT}; remove document:, which only platform dashboards and notebooks carry`, [DOCUMENT_KEY]);
  if (shape !== undefined && shape !== parsed.data) {
    return unknown(`kind is ${parsed.data}, but the file holds ${CONTENT_OF[shape]}; say kind: ${shape}`, [DOCUMENT_KEY, 'kind']);
  }
  return { kind: KIND_OF_DOCUMENT[parsed.data] };
}

function unknown(reason: string, path: FilePath): FileKind {
  return { kind: 'unknown', reason, path };
}

/** A mapping: what a file, `document:`, tiles and layouts must be. */
export function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

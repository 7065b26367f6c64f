import { errorMessage } from '../lib/error-message.js';
import { seenTexts } from '../lib/seen-texts.js';
import { Pool } from 'undici';
import { systemClock, type Clock } from '../lib/clock.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { readMultipart } from '../lib/multipart-read.js';
import { encodeMultipart, multipartContentType, newBoundary, type PartSpec } from '../lib/multipart-write.js';
import {
  DOCUMENT_API_PREFIX,
  DocumentList,
  DocumentMetadata,
  LOCKING_VERSION_PARAM,
  TrashDocument,
  TrashDocumentList,
  UpdateDocumentResult,
} from '../schema/documents.js';
import { attemptError, failedAttempt } from './attempt-failure.js';
import { API_ANSWER_LIMIT_BYTES, DOCUMENT_ANSWER_LIMIT_BYTES, readBody } from './bounded-body.js';
import { ApiError, UnexpectedResponseError, type HttpMethod } from './errors.js';
import { apiErrorFrom, type TargetOrigin } from './messages.js';
import { bearerSource, type BearerSource, type PlatformCredential } from './platform-auth.js';
import { createRedactor, displayUrl } from './redact.js';
import { parseBodyAs, unexpectedResponse, type TextResponse } from './response.js';
import { createRetryLogger } from './retry-log.js';
import { requestSignals } from './request.js';
import { runWithRetry } from './retry-loop.js';
import { DEFAULT_RETRY_POLICY, type ResponseHeaders, type RetryPolicy } from './retry.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

export interface DocumentsClientOptions {
  /** The environment's platform URL, e.g. https://abc123.apps.dynatrace.com or http://127.0.0.1:8080/e/dev. */
  readonly platformUrl: string;
  readonly credential: PlatformCredential | BearerSource;
  readonly log?: Logger;
  readonly clock?: Clock;
  readonly retry?: Partial<RetryPolicy>;
  readonly connections?: number;
  readonly requestTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly random?: () => number;
  /** The settings its failures name (default: DT_PLATFORM_URL and DT_PLATFORM_TOKEN or an OAuth client's). */
  readonly origin?: TargetOrigin;
}

export interface DocumentContent {
  readonly bytes: Uint8Array | string;
  readonly contentType: string;
}

export interface NewDocument {
  readonly name: string;
  readonly type: string;
  readonly description?: string;
  /** A custom id (letters, digits, dashes; not a UUID); the service makes a UUID when absent. */
  readonly id?: string;
  readonly isPrivate?: boolean;
  readonly content: DocumentContent;
}

export interface DocumentChanges {
  readonly name?: string;
  readonly type?: string;
  readonly description?: string;
  readonly isPrivate?: boolean;
  readonly content?: DocumentContent;
}

export interface ListOptions {
  readonly filter?: string;
  readonly sort?: string;
  readonly pageSize?: number;
  readonly addFields?: readonly string[];
}

export interface DocumentsClient {
  /** The platform URL, redacted for display. */
  readonly baseUrl: string;
  /** A 409 for an id held by a document in the caller's trash is an IdInTrashError. */
  create(document: NewDocument): Promise<DocumentMetadata>;
  /** Metadata and content in one call (the multipart GET). */
  get(id: string): Promise<{ metadata: DocumentMetadata; content: Buffer; contentType: string }>;
  metadata(id: string): Promise<DocumentMetadata>;
  content(id: string): Promise<{ bytes: Buffer; contentType: string }>;
  /** Needs the version last read: a 409 ApiError when it is stale (never retried: re-read and decide). */
  update(id: string, version: number, changes: DocumentChanges): Promise<DocumentMetadata>;
  replaceContent(id: string, version: number, content: DocumentContent): Promise<DocumentMetadata>;
  /** Moves the document to the trash. */
  delete(id: string, version: number): Promise<void>;
  /** Every page of a listing. */
  list(options?: ListOptions): Promise<DocumentMetadata[]>;
  trash: {
    list(filter?: string): Promise<TrashDocumentList['documents']>;
    get(id: string): Promise<TrashDocument>;
    restore(id: string): Promise<void>;
    purge(id: string): Promise<void>;
  };
  close(): Promise<void>;
}

/**
 * A create refused (409) because its id belongs to a document in the caller's trash. The service keeps a trashed
 * document's id taken until it is restored or purged, and its 409 reads as for any taken id, so a caller would take
 * it for a race and retry in vain; `trashed` is what the trash holds, for advice that names it.
 */
export class IdInTrashError extends ApiError {
  readonly trashed: TrashDocument;

  constructor(refused: ApiError, trashed: TrashDocument) {
    const { deletedTime, deletedBy } = trashed.deletionInfo;
    const message = `409 from ${refused.method} ${refused.url}: id ${trashed.id} is held by a document in the trash (${trashed.name}, deleted ${deletedTime} by ${deletedBy}) until it is restored or purged`;
    super(message, { method: refused.method, url: refused.url, status: refused.status, attempts: refused.attempts, ...(refused.envelope ? { envelope: refused.envelope } : {}) });
    this.trashed = trashed;
  }
}

const DEFAULT_PLATFORM_ORIGIN: TargetOrigin = { url: 'DT_PLATFORM_URL', token: 'DT_PLATFORM_TOKEN (or DT_CLIENT_ID and DT_CLIENT_SECRET)' };
const MAX_PAGES = 10_000;
/** Items a listing may hold: far past any environment's documents, well within memory (about 1 kB of metadata each). */
export const MAX_LISTED_ITEMS = 200_000;

interface Call {
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly parts?: ReadonlyArray<PartSpec & { readonly body: Uint8Array | string }>;
  /** The statuses the operation accepts; anything else is an ApiError. */
  readonly ok: readonly number[];
  /** Bytes of the answer read at most (default API_ANSWER_LIMIT_BYTES): more for an answer carrying content. */
  readonly answerLimit?: number;
}

interface BinaryResponse extends TextResponse {
  readonly bytes: Buffer;
}

/**
 * The platform Document service's client, for the embedded server and a real environment alike: a bearer token
 * (platform token, or an OAuth client's access token refreshed before it expires and once more after a 401), the
 * config client's retry policy and rate-limit handling, binary bodies both ways. Writes are conditional
 * (optimistic locking), so they retry only where the server cannot have acted (429, 503, never connected): a 409 is
 * the caller's to resolve by reading again.
 */
export function createDocumentsClient(options: DocumentsClientOptions): DocumentsClient {
  const { log = silentLogger(), clock = systemClock, random = Math.random } = options;
  const { credential, origin = DEFAULT_PLATFORM_ORIGIN } = options;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const auth = 'kind' in credential ? bearerSource(credential, { clock, policy }) : credential;
  const refreshable = !('kind' in credential) || credential.kind === 'oauth-client';
  const root = new URL(options.platformUrl);
  const redact = (text: string): string => auth.secrets().reduce((scrubbed, secret) => createRedactor(secret)(scrubbed), text);
  const baseUrl = displayUrl(root, redact);
  const prefix = `${withoutTrailingSlashes(root.pathname)}${DOCUMENT_API_PREFIX}`;
  const pool = new Pool(root.origin, {
    connections: options.connections ?? 8,
    headersTimeout: options.requestTimeoutMs ?? 60_000,
    bodyTimeout: options.requestTimeoutMs ?? 60_000,
    keepAliveTimeout: 10_000,
  });
  const logRetry = createRetryLogger(log, clock);

  // One listener on the client's signal however many requests are in flight (request.ts).
  const signals = requestSignals(options.signal);
  const attempt = async (call: Call, path: string, body: Buffer | undefined, contentType: string | undefined, token: string, signal: AbortSignal) => {
    try {
      const response = await pool.request({
        method: call.method,
        path,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json, multipart/form-data', 'user-agent': 'dashcd', ...(contentType ? { 'content-type': contentType } : {}) },
        body: body ?? null,
        signal,
      });
      const bytes = await readBody(response, call.answerLimit ?? API_ANSWER_LIMIT_BYTES);
      return { kind: 'response' as const, status: response.statusCode, headers: response.headers as ResponseHeaders, bytes };
    } catch (error) {
      return failedAttempt(error, signal);
    }
  };

  const send = async (call: Call): Promise<BinaryResponse> => {
    const search = call.query?.toString() ?? '';
    const path = `${prefix}${call.path}${search === '' ? '' : `?${search}`}`;
    const site = { method: call.method, url: displayUrl(new URL(path, root.origin), redact) };
    const boundary = call.parts ? newBoundary() : undefined;
    const body = call.parts && boundary ? encodeMultipart(boundary, call.parts) : undefined;
    const contentType = boundary ? multipartContentType(boundary) : undefined;
    let outcome;
    let attempts = 0;
    const { signal, release } = signals.open(undefined);
    try {
      // One more round after a 401 with a fresh access token: the one held may have been revoked or expired early.
      for (let round = 0; round < 2; round++) {
        const token = await auth.token(signal);
        const result = await runWithRetry((_attempt, attemptSignal) => attempt(call, path, body, contentType, token, attemptSignal), {
          policy,
          clock,
          random,
          idempotent: call.method === 'GET',
          signal,
          onRetry: (info) => logRetry(site, info),
        });
        outcome = result.outcome;
        attempts += result.attempts;
        if (!refreshable || outcome.kind !== 'response' || outcome.status !== 401) break;
        auth.invalidate();
      }
    } finally {
      release();
    }
    if (!outcome || outcome.kind === 'transport') {
      throw attemptError(outcome ?? { kind: 'transport', reason: 'unknown', cause: undefined }, { ...site, baseUrl, attempts, redact, origin });
    }
    const response: BinaryResponse = { status: outcome.status, headers: outcome.headers, text: '', bytes: outcome.bytes, ...site, attempts };
    if (!call.ok.includes(outcome.status)) throw fail({ ...response, text: outcome.bytes.toString('utf8') });
    return response;
  };

  const fail = (response: TextResponse): ApiError => apiErrorFrom(response.status, response.text, { ...response, baseUrl, redact, origin });
  const asJson = (response: BinaryResponse): TextResponse => ({ ...response, text: response.bytes.toString('utf8') });
  const metadataOf = async (call: Call): Promise<DocumentMetadata> => parseBodyAs(asJson(await send(call)), DocumentMetadata);
  const docPath = (id: string) => `/documents/${encodeURIComponent(id)}`;
  const versioned = (version: number) => new URLSearchParams({ [LOCKING_VERSION_PARAM]: String(version) });

  /**
   * Every page of a listing. A target's listing fails as a target does (exit 4), never by looping or filling the
   * heap: page keys that come round again (10,000 requests, then an unexpected error), or more than
   * MAX_LISTED_ITEMS items (endless pages of 45,000 documents ended `pull --all` out of memory).
   */
  const listAll = async <T>(path: string, query: URLSearchParams, read: (response: TextResponse) => { items: T[]; next: string | null | undefined }): Promise<T[]> => {
    const items: T[] = [];
    const keys = seenTexts();
    let page = query;
    for (let n = 1; ; n++) {
      const response = asJson(await send({ method: 'GET', path, query: page, ok: [200] }));
      const { items: found, next } = read(response);
      for (const item of found) items.push(item);
      if (!next) return items;
      const why = !keys.add(next) ? `its page keys go round in a loop (one came again after ${n} pages)` : items.length > MAX_LISTED_ITEMS ? `it lists more than ${MAX_LISTED_ITEMS} items` : n >= MAX_PAGES ? `it did not end within ${MAX_PAGES} pages` : undefined;
      if (why !== undefined) throw new UnexpectedResponseError(`listing ${response.method} ${response.url} stopped: ${why}`, { ...response, problems: [why] });
      // The key carries the listing (filter, sort, size); what each page shows (add-fields) is asked again, and the
      // filter resent as the service's own clients do. Only page-size must not be combined with a key.
      page = new URLSearchParams([...[...query].filter(([name]) => name !== 'page-size'), ['page-key', next]]);
    }
  };

  const trashGet = async (id: string): Promise<TrashDocument> => parseBodyAs(asJson(await send({ method: 'GET', path: `/trash${docPath(id)}`, ok: [200] })), TrashDocument);

  /**
   * A create's 409 for a custom id, asked of the trash: the one place that tells a trashed holder from a live one.
   * Any failure to look (no trash scope, another owner's trash: 404) leaves the service's own answer.
   */
  const explainTakenId = async (error: unknown, id: string | undefined): Promise<unknown> => {
    if (id === undefined || !(error instanceof ApiError) || error.status !== 409) return error;
    const trashed = await trashGet(id).catch(() => undefined);
    return trashed ? new IdInTrashError(error, trashed) : error;
  };

  return {
    baseUrl,
    async create(document) {
      try {
        return await metadataOf({
          method: 'POST',
          path: '/documents',
          ok: [201],
          parts: [
            ...textParts({ name: document.name, type: document.type, description: document.description, id: document.id, isPrivate: document.isPrivate }),
            contentPart(document.name, document.content),
          ],
        });
      } catch (error) {
        throw await explainTakenId(error, document.id);
      }
    },
    async get(id) {
      const response = await send({ method: 'GET', path: docPath(id), ok: [200], answerLimit: DOCUMENT_ANSWER_LIMIT_BYTES });
      return readDocumentParts(response);
    },
    metadata: (id) => metadataOf({ method: 'GET', path: `${docPath(id)}/metadata`, ok: [200] }),
    async content(id) {
      const response = await send({ method: 'GET', path: `${docPath(id)}/content`, ok: [200], answerLimit: DOCUMENT_ANSWER_LIMIT_BYTES });
      return { bytes: response.bytes, contentType: headerText(response.headers['content-type']) };
    },
    async update(id, version, changes) {
      const { name, type, description, isPrivate } = changes;
      const parts = [...textParts({ name, type, description, isPrivate }), ...(changes.content ? [contentPart(changes.name ?? id, changes.content)] : [])];
      const response = await send({ method: 'PATCH', path: docPath(id), query: versioned(version), parts, ok: [200] });
      return parseBodyAs(asJson(response), UpdateDocumentResult).documentMetadata;
    },
    replaceContent: (id, version, content) =>
      metadataOf({ method: 'PUT', path: `${docPath(id)}/content`, query: versioned(version), parts: [contentPart(id, content)], ok: [200] }),
    async delete(id, version) {
      await send({ method: 'DELETE', path: docPath(id), query: versioned(version), ok: [204] });
    },
    list: ({ filter, sort, pageSize, addFields } = {}) => {
      const query = new URLSearchParams();
      if (filter !== undefined) query.set('filter', filter);
      if (sort !== undefined) query.set('sort', sort);
      if (pageSize !== undefined) query.set('page-size', String(pageSize));
      if (addFields?.length) query.set('add-fields', addFields.join(','));
      return listAll('/documents', query, (response) => {
        const page = parseBodyAs(response, DocumentList);
        return { items: page.documents, next: page.nextPageKey };
      });
    },
    trash: {
      list: (filter) =>
        listAll('/trash/documents', new URLSearchParams(filter === undefined ? {} : { filter }), (response) => {
          const page = parseBodyAs(response, TrashDocumentList);
          return { items: page.documents, next: page.nextPageKey };
        }),
      get: trashGet,
      async restore(id) {
        await send({ method: 'POST', path: `/trash${docPath(id)}/restore`, ok: [200, 204] });
      },
      async purge(id) {
        await send({ method: 'DELETE', path: `/trash${docPath(id)}`, ok: [204] });
      },
    },
    close: () => pool.close(),
  };
}

/** Go sends form fields without a Content-Type; a text/plain one is what browsers and undici send, and equally read. */
function textParts(fields: Readonly<Record<string, string | boolean | undefined>>): Array<PartSpec & { body: string }> {
  return Object.entries(fields).flatMap(([name, value]) => (value === undefined ? [] : [{ name, contentType: 'text/plain; charset=utf-8', body: String(value) }]));
}

function contentPart(filename: string, content: DocumentContent): PartSpec & { body: Uint8Array | string } {
  return { name: 'content', filename, contentType: content.contentType, body: content.bytes };
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** The multipart GET: the `metadata` part's JSON and the `content` part's bytes and type. */
async function readDocumentParts(response: BinaryResponse): Promise<{ metadata: DocumentMetadata; content: Buffer; contentType: string }> {
  const boundary = /boundary="?([^";]+)"?/.exec(headerText(response.headers['content-type']))?.[1];
  const parts = new Map<string, { bytes: Buffer; contentType: string }>();
  if (boundary) {
    try {
      await readMultipart([response.bytes], boundary, (part) => {
        const chunks: Buffer[] = [];
        return {
          write: (chunk) => void chunks.push(Buffer.from(chunk)),
          end: () => void parts.set(part.name, { bytes: Buffer.concat(chunks), contentType: part.contentType ?? '' }),
        };
      });
    } catch (error) {
      throw unexpectedResponse({ ...response, text: '' }, [`the multipart body does not parse: ${errorMessage(error)}`]);
    }
  }
  const metadata = parts.get('metadata');
  const content = parts.get('content');
  if (!metadata || !content) throw unexpectedResponse({ ...response, text: '' }, ["a document's GET needs a 'metadata' and a 'content' part"]);
  return { metadata: parseBodyAs({ ...response, text: metadata.bytes.toString('utf8') }, DocumentMetadata), content: content.bytes, contentType: content.contentType };
}

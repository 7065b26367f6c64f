import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { closingDelimiter, multipartContentType, newBoundary, partHead } from '../../lib/multipart-write.js';
import { DOCUMENT_VERSION_HEADER, LOCKING_VERSION_PARAM, isDocumentId } from '../../schema/documents.js';
import type { PlatformScope } from '../../schema/scopes.js';
import { HttpError } from '../http/http-error.js';
import { BodyParts } from '../http/respond.js';
import type { StoredDocument } from './document-record.js';
import { readCreateInput, readUpdateInput, servedContentType } from './document-form.js';
import type { Caller, DocumentService, MetadataView, UpdateInput } from './document-service.js';
import type { Page } from './list-query.js';

/** A stored document is data, never a page of this origin: no script, no load, a unique origin. */
const STORED_CONTENT_POLICY = "default-src 'none'; sandbox";

export type DocumentMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface DocumentRequest {
  readonly req: IncomingMessage;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly caller: Caller;
  readonly service: DocumentService;
}

/** JSON unless `body` is bytes or a stream (then `headers` carry its type). */
export interface DocumentResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface DocumentRoute {
  readonly method: DocumentMethod;
  /** Below `/platform/document/v1`. */
  readonly path: string;
  readonly scope: PlatformScope;
  handle(request: DocumentRequest): Promise<DocumentResponse>;
  /**
   * The same answer in the same turn when all it needs is in memory now, else undefined (and `handle` answers). Only
   * reads have one: a document GET is most of what a GitOps tool asks, and its promises were most of its cost.
   */
  handleNow?(request: DocumentRequest): DocumentResponse | undefined;
}

const READ: PlatformScope = 'document:documents:read';
const WRITE: PlatformScope = 'document:documents:write';

/** The Document service's calls a GitOps tool makes (snapshots, locks and shares are not among them). */
export const DOCUMENT_ROUTES: readonly DocumentRoute[] = [
  {
    method: 'POST',
    path: '/documents',
    scope: WRITE,
    async handle({ req, caller, service }) {
      const record = await service.create(await readCreateInput(req, () => service.upload()), caller);
      return { status: 201, body: service.metadata(record, caller), headers: versionHeader(record) };
    },
  },
  {
    method: 'GET',
    path: '/documents',
    scope: READ,
    async handle(request) {
      return listAnswer(request);
    },
    handleNow: listAnswer,
  },
  {
    method: 'GET',
    path: '/documents/{id}',
    scope: READ,
    async handle({ params, caller, service }) {
      const { record, body } = await service.content(documentId(params), caller);
      return multipartDocument(service.metadataView(record, caller), record, body);
    },
    handleNow({ params, caller, service }) {
      const held = service.heldContent(documentId(params), caller);
      return held && multipartDocument(service.metadataView(held.record, caller), held.record, held.body);
    },
  },
  {
    method: 'GET',
    path: '/documents/{id}/metadata',
    scope: READ,
    async handle({ params, caller, service }) {
      const record = service.get(documentId(params), caller);
      return { status: 200, body: service.metadata(record, caller), headers: versionHeader(record) };
    },
  },
  {
    method: 'GET',
    path: '/documents/{id}/content',
    scope: READ,
    async handle({ params, caller, service }) {
      const { record, body } = await service.content(documentId(params), caller);
      return {
        status: 200,
        body,
        // Stored content is served as the type its uploader named (text/html included): never sniffed into another,
        // and, opened as a page on the console's origin, sandboxed with nothing to load or run.
        headers: { 'content-type': servedContentType(record.content.contentType), 'content-length': String(record.content.size), 'x-content-type-options': 'nosniff', 'content-security-policy': STORED_CONTENT_POLICY, ...versionHeader(record) },
      };
    },
  },
  versionedUpdateRoute('PATCH', '/documents/{id}', (input) => input, (documentMetadata) => ({ documentMetadata })),
  versionedUpdateRoute('PATCH', '/documents/{id}/metadata', async ({ content, name, type, description, isPrivate }) => {
    if (content) {
      await content.upload.discard();
      throw new HttpError(400, "The metadata update takes 'name' and 'type' only; send content to PUT /documents/{id}/content.");
    }
    // Accepted and dropped, they would be a write that answers 200 and changes nothing the client asked for.
    if (description !== undefined || isPrivate !== undefined) {
      throw new HttpError(400, "The metadata update takes 'name' and 'type' only; send 'description' or 'isPrivate' to PATCH /documents/{id}.");
    }
    return { ...(name !== undefined ? { name } : {}), ...(type !== undefined ? { type } : {}) };
  }),
  versionedUpdateRoute('PUT', '/documents/{id}/content', ({ content }) => {
    if (!content) throw new HttpError(400, "Replacing the content needs a 'content' part.");
    return { content };
  }),
  {
    method: 'DELETE',
    path: '/documents/{id}',
    scope: 'document:documents:delete',
    async handle({ params, query, caller, service }) {
      await service.trash(documentId(params), lockingVersion(query), caller);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/trash/documents',
    scope: 'document:trash.documents:read',
    async handle({ query, caller, service }) {
      const page = service.trashList(caller, query);
      const documents = page.items.map((record) => Buffer.from(JSON.stringify({ id: record.id, name: record.name, type: record.type, deletionInfo: record.trashed })));
      return { status: 200, body: pageJson(page, documents) };
    },
  },
  {
    method: 'GET',
    path: '/trash/documents/{id}',
    scope: 'document:trash.documents:read',
    async handle({ params, caller, service }) {
      const record = service.trashed(documentId(params), caller);
      const { id, name, type, version, owner, modificationInfo, trashed } = record;
      return { status: 200, body: { id, name, type, version, owner, modificationInfo, deletionInfo: trashed } };
    },
  },
  {
    method: 'POST',
    path: '/trash/documents/{id}/restore',
    scope: 'document:trash.documents:restore',
    async handle({ params, caller, service }) {
      await service.restore(documentId(params), caller);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/trash/documents/{id}',
    scope: 'document:trash.documents:delete',
    async handle({ params, caller, service }) {
      await service.purge(documentId(params), caller);
      return { status: 204 };
    },
  },
];

/**
 * A write of the parts `take` keeps (it refuses the request, discarding any upload, or narrows the parts), checked
 * id first, then version, then parts (a bad version costs no upload); answered with the new metadata, `wrap`ped.
 */
function versionedUpdateRoute(
  method: DocumentMethod,
  path: string,
  take: (input: UpdateInput) => UpdateInput | Promise<UpdateInput>,
  wrap: (metadata: unknown) => unknown = (metadata) => metadata,
): DocumentRoute {
  return {
    method,
    path,
    scope: WRITE,
    async handle({ req, params, query, caller, service }) {
      const id = documentId(params);
      const version = lockingVersion(query);
      const input = await take(await readUpdateInput(req, () => service.upload()));
      const record = await service.update(id, version, input, caller);
      return { status: 200, body: wrap(service.metadata(record, caller)), headers: versionHeader(record) };
    },
  };
}

function versionHeader(record: StoredDocument): Record<string, string> {
  return { [DOCUMENT_VERSION_HEADER]: String(record.version) };
}

/** A listing is made from the records in memory: the same answer either way. */
function listAnswer({ query, caller, service }: DocumentRequest): DocumentResponse {
  const description = (query.get('add-fields') ?? '').split(',').some((field) => field.trim() === 'description');
  const page = service.list(caller, query);
  return { status: 200, body: pageJson(page, page.items.map((record) => service.metadataBytes(record, caller, { description }))) };
}

/** A path id that could name a document; anything else (a `..`, a slash encoded) cannot exist: 404. */
function documentId(params: Readonly<Record<string, string>>): string {
  const raw = params.id ?? '';
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    id = raw;
  }
  if (!isDocumentId(id)) throw new HttpError(404, `Document ${id.slice(0, 100)} not found.`);
  return id;
}

/** Every write names the version it read; without one it is refused (400) rather than applied blindly. */
function lockingVersion(query: URLSearchParams): number {
  const raw = query.get(LOCKING_VERSION_PARAM);
  if (raw === null || raw === '') throw new HttpError(400, `The query parameter '${LOCKING_VERSION_PARAM}' is required: the version of the document you last read.`);
  if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, `'${LOCKING_VERSION_PARAM}' must be a whole number, not '${raw.slice(0, 20)}'.`);
  return Number(raw);
}

/**
 * A listing's answer from its documents' JSON bytes (ready-made per record: no page of objects stringified, nor its
 * text encoded, per request), copied once into the body.
 */
function pageJson(page: Page<unknown>, documents: readonly Buffer[]): Buffer {
  const next = page.nextPageKey ? `,"nextPageKey":${JSON.stringify(page.nextPageKey)}` : '';
  const tail = Buffer.from(`],"totalCount":${page.totalCount}${next}}`);
  let size = LIST_HEAD.length + Math.max(0, documents.length - 1) + tail.length;
  for (const document of documents) size += document.length;
  const body = Buffer.allocUnsafe(size);
  let at = LIST_HEAD.copy(body, 0);
  documents.forEach((document, index) => {
    if (index > 0) body[at++] = COMMA;
    at += document.copy(body, at);
  });
  tail.copy(body, at);
  return body;
}

const LIST_HEAD = Buffer.from('{"documents":[');
const COMMA = 0x2c;

/**
 * The GET answer as Go's ReadForm needs it (Monaco, Terraform): a `metadata` part without filename, so it is a form
 * value, and a `content` part with the document's name as filename, so it is a file. Framing and metadata are one
 * buffer; a content held in memory goes out beside it in the same socket write, uncopied, else it is streamed from
 * its file; with its length either way.
 */
/** What frames a document's content in a GET's answer: everything but the content's own bytes. */
interface Framing {
  /** The metadata part whole, then the content part's delimiter and headers. */
  readonly head: Buffer;
  readonly close: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Each metadata view's framing, made on its first GET and kept as long as the record lives: a fresh boundary and the
 * part heads encoded for every answer were a tenth of a document GET's CPU. A boundary is still drawn from a
 * cryptographic source after everything it frames was written (a record is never changed, only replaced, and its
 * replacement gets a view and a boundary of its own), so a reader who learns it from one answer cannot place it
 * inside the parts of this one.
 */
const framings = new WeakMap<MetadataView, Framing>();

function framingOf(view: MetadataView, record: StoredDocument): Framing {
  let framing = framings.get(view);
  if (!framing) {
    const boundary = newBoundary();
    framing = {
      head: Buffer.from(
        partHead(boundary, { name: 'metadata', contentType: 'application/json' }, true) +
          view.text +
          partHead(boundary, { name: 'content', filename: record.name, contentType: servedContentType(record.content.contentType) }, false),
      ),
      close: Buffer.from(closingDelimiter(boundary)),
      headers: { 'content-type': multipartContentType(boundary), ...versionHeader(record) },
    };
    framings.set(view, framing);
  }
  return framing;
}

function multipartDocument(view: MetadataView, record: StoredDocument, content: Buffer | Readable): DocumentResponse {
  const { head, close, headers } = framingOf(view, record);
  if (!(content instanceof Readable)) return { status: 200, body: new BodyParts([head, content, close]), headers };
  const file = content;
  const length = head.length + record.content.size + close.length;
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of file) yield chunk as Buffer;
    yield close;
  }
  const stream = Readable.from(body(), { objectMode: false });
  stream.once('close', () => file.destroy());
  return { status: 200, body: stream, headers: { ...headers, 'content-length': String(length) } };
}

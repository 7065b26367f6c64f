import { randomUUID as nodeRandomUUID } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import type { Clock } from '../../lib/clock.js';
import type { DocumentAccess, DocumentMetadata } from '../../schema/documents.js';
import { HttpError } from '../http/http-error.js';
import { StoreError } from '../store/store-error.js';
import type { ContentUpload } from './content-files.js';
import type { StoredContent, StoredDocument } from './document-record.js';
import type { DocumentStore } from './document-store.js';
import { listPage, type Page } from './list-query.js';
import { ListingViews } from './listing-views.js';

/** Who calls: the subject of the platform token or OAuth client (the owner of what it creates). */
export interface Caller {
  readonly subject: string;
}

export interface NewContent {
  readonly upload: ContentUpload;
  readonly contentType: string;
}

export interface CreateInput {
  readonly id?: string;
  readonly name: string;
  readonly type: string;
  readonly description?: string;
  readonly isPrivate?: boolean;
  readonly content: NewContent;
}

export interface UpdateInput {
  readonly name?: string;
  readonly type?: string;
  readonly description?: string;
  readonly isPrivate?: boolean;
  readonly content?: NewContent;
}

/**
 * One view of a record's metadata as JSON: the text, and its bytes once a listing asked for them. The same object for
 * as long as the record lives, so what is derived from the view can be kept against it (a GET's multipart framing).
 */
export interface MetadataView {
  readonly text: string;
}

interface MetadataText extends MetadataView {
  bytes: Buffer | undefined;
}

/**
 * The Document service's rules over a store: versions (each write names the version it read, a mismatch is 409 and
 * changes nothing, a success bumps it by one), ownership (the caller's subject owns what it creates; documents are
 * private unless made public; only the owner writes, deletes or changes privacy; others read public ones), and the
 * trash (delete moves a document there, where only its owner sees, restores or purges it; its id stays taken).
 * Every refusal is an HttpError; an upload the write does not keep is discarded.
 */
export class DocumentService {
  private readonly views: ListingViews<StoredDocument>;
  /** A record is never changed, only replaced: its texts go with it. */
  private readonly metadataTexts = new WeakMap<StoredDocument, (MetadataText | undefined)[]>();

  constructor(
    private readonly store: DocumentStore,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly randomUUID: () => string = nodeRandomUUID,
  ) {
    this.views = new ListingViews(store);
  }

  upload(): ContentUpload {
    return this.store.upload();
  }

  async create(input: CreateInput, caller: Caller): Promise<StoredDocument> {
    const id = input.id ?? this.freshId();
    const now = this.nowIso();
    return this.withContent(input.content, (content) =>
      this.store.write(id, (current) => {
        if (current) {
          throw new HttpError(409, current.trashed ? `A document with id ${id} is in the trash; its id is still taken.` : `A document with id ${id} already exists.`);
        }
        const twin = this.store.caseTwin(id);
        // The twin is not named: it may be another owner's private document.
        if (twin !== undefined) throw new HttpError(409, `A document whose id differs from ${id} only in letter case already exists; such ids are refused here (this server keeps a file per id).`);
        const record: StoredDocument = {
          id,
          name: input.name,
          type: input.type,
          ...(input.description !== undefined ? { description: input.description } : {}),
          version: 1,
          owner: caller.subject,
          isPrivate: input.isPrivate ?? true,
          modificationInfo: { createdBy: caller.subject, createdTime: now, lastModifiedBy: caller.subject, lastModifiedTime: now },
          content: content as StoredContent,
        };
        return { next: record, result: record };
      }),
    );
  }

  /** A document the caller may read; 404 when absent or trashed, 403 when it is someone else's private one. */
  get(id: string, caller: Caller): StoredDocument {
    return this.readable(this.store.get(id), id, caller);
  }

  /** A readable document with its content when the content is in memory now; undefined when it must be read. */
  heldContent(id: string, caller: Caller): { record: StoredDocument; body: Buffer } | undefined {
    const record = this.get(id, caller);
    const body = this.store.heldContent(record);
    return body && { record, body };
  }

  /**
   * The content stream of a readable document. A write may replace the file between reading the record and opening
   * it: then the newer record is read again. A file missing under an unchanged record is a damaged store.
   */
  async content(id: string, caller: Caller): Promise<{ record: StoredDocument; body: Buffer | ReadStream }> {
    let record = this.get(id, caller);
    for (;;) {
      const body = await this.store.readContent(record);
      if (body) return { record, body };
      const again = this.get(id, caller);
      if (again.content.file === record.content.file) throw new StoreError('STORE_IO', `The content file ${record.content.file} of document ${id} is missing.`);
      record = again;
    }
  }

  /** A page of the documents the caller may read, as the query's filter, sort and page ask (see listPage). */
  list(caller: Caller, query: URLSearchParams): Page<StoredDocument> {
    return listPage(this.views, `list:${caller.subject}`, (record) => !record.trashed && (record.owner === caller.subject || !record.isPrivate), query);
  }

  async update(id: string, version: number, input: UpdateInput, caller: Caller): Promise<StoredDocument> {
    return this.withContent(input.content, (content) =>
      this.store.write(id, (current) => {
        const record = this.writable(current, id, version, caller);
        const next: StoredDocument = {
          ...record,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.type !== undefined ? { type: input.type } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.isPrivate !== undefined ? { isPrivate: input.isPrivate } : {}),
          ...(content ? { content } : {}),
          version: record.version + 1,
          modificationInfo: { ...record.modificationInfo, lastModifiedBy: caller.subject, lastModifiedTime: this.nowIso() },
        };
        return { next, result: next };
      }),
    );
  }

  async trash(id: string, version: number, caller: Caller): Promise<void> {
    await this.store.write(id, (current) => {
      const record = this.writable(current, id, version, caller);
      return { next: { ...record, trashed: { deletedBy: caller.subject, deletedTime: this.nowIso() } }, result: undefined };
    });
  }

  /** A page of the caller's trash, by id. */
  trashList(caller: Caller, query: URLSearchParams): Page<StoredDocument> {
    return listPage(this.views, `trash:${caller.subject}`, (record) => record.trashed !== undefined && record.owner === caller.subject, query, { sortable: false });
  }

  trashed(id: string, caller: Caller): StoredDocument {
    const record = this.store.get(id);
    if (!record?.trashed || record.owner !== caller.subject) throw notInTrash(id);
    return record;
  }

  async restore(id: string, caller: Caller): Promise<StoredDocument> {
    return this.store.write(id, (current) => {
      if (!current?.trashed || current.owner !== caller.subject) throw notInTrash(id);
      const { trashed: _trashed, ...restored } = current;
      return { next: restored, result: restored };
    });
  }

  async purge(id: string, caller: Caller): Promise<void> {
    await this.store.write(id, (current) => {
      if (!current?.trashed || current.owner !== caller.subject) throw notInTrash(id);
      return { next: null, result: undefined };
    });
  }

  /**
   * `metadata` as JSON text, made once per record version and view (owner or not, with description or not): a page of
   * 100 stringified per request was a third of the list's time. The same object each time for as long as the record
   * lives, so what is derived from the text can be kept against it.
   */
  metadataView(record: StoredDocument, caller: Caller, options: { description?: boolean } = {}): MetadataView {
    return this.metadataText(record, caller, options);
  }

  /** metadataView's text as UTF-8 bytes, kept beside it: a listing copies 100 of them instead of encoding its text. */
  metadataBytes(record: StoredDocument, caller: Caller, options: { description?: boolean } = {}): Buffer {
    const entry = this.metadataText(record, caller, options);
    return (entry.bytes ??= Buffer.from(entry.text));
  }

  private metadataText(record: StoredDocument, caller: Caller, { description = true }: { description?: boolean }): MetadataText {
    let views = this.metadataTexts.get(record);
    if (!views) {
      views = [];
      this.metadataTexts.set(record, views);
    }
    const view = (record.owner === caller.subject ? 2 : 0) + (description ? 1 : 0);
    return (views[view] ??= { text: JSON.stringify(this.metadata(record, caller, { description })), bytes: undefined });
  }

  /** The metadata as the caller sees it: `access` lists what it may do; `description` where asked for. */
  metadata(record: StoredDocument, caller: Caller, { description = true }: { description?: boolean } = {}): DocumentMetadata {
    return {
      id: record.id,
      name: record.name,
      type: record.type,
      ...(description && record.description !== undefined ? { description: record.description } : {}),
      version: record.version,
      owner: record.owner,
      isPrivate: record.isPrivate,
      modificationInfo: record.modificationInfo,
      access: accessOf(record, caller),
      originAppId: null,
      originExtensionId: null,
    };
  }

  private readable(record: StoredDocument | undefined, id: string, caller: Caller): StoredDocument {
    if (!record || record.trashed) throw notFound(id);
    if (record.isPrivate && record.owner !== caller.subject) throw new HttpError(403, `Document ${id} is private to its owner.`);
    return record;
  }

  private writable(current: StoredDocument | undefined, id: string, version: number, caller: Caller): StoredDocument {
    const record = this.readable(current, id, caller);
    if (record.owner !== caller.subject) throw new HttpError(403, `Only the owner of document ${id} (${record.owner}) may change or delete it.`);
    if (record.version !== version) {
      throw new HttpError(409, `Optimistic locking failed: document ${id} is at version ${record.version}, not ${version}. Read it again and retry.`);
    }
    return record;
  }

  /**
   * Runs a write with its upload finished first (durable before any record refers to it); a write that refuses or
   * fails discards it.
   */
  private async withContent<T>(input: NewContent | undefined, write: (content: StoredContent | undefined) => Promise<T>): Promise<T> {
    try {
      const finished = input && { ...(await input.upload.finish()), contentType: input.contentType };
      return await write(finished);
    } catch (error) {
      await input?.upload.discard();
      throw error;
    }
  }

  private freshId(): string {
    for (;;) {
      const id = this.randomUUID();
      if (!this.store.get(id)) return id;
    }
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function accessOf(record: StoredDocument, caller: Caller): DocumentAccess[] {
  return record.owner === caller.subject ? ['read', 'write', 'delete'] : ['read'];
}

function notFound(id: string): HttpError {
  return new HttpError(404, `Document ${id} not found.`);
}

function notInTrash(id: string): HttpError {
  return new HttpError(404, `Document ${id} is not in the trash.`);
}

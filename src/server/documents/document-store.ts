import { errorMessage } from '../../lib/error-message.js';
import type { ReadStream } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable } from '../../lib/durable-file.js';
import { ignoreMissing } from '../../lib/fs-errors.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { isDocumentId } from '../../schema/documents.js';
import { JournaledFiles } from '../store/journaled-files.js';
import { KeyedSerializer } from '../store/keyed-serializer.js';
import { StoreError } from '../store/store-error.js';
import { ContentCache } from './content-cache.js';
import { ContentFiles, type ContentUpload } from './content-files.js';
import { removeWriteLeftovers } from '../../lib/write-leftovers.js';
import { StoredDocument, serialiseRecord } from './document-record.js';

export interface DocumentStoreOptions {
  /** The environment's documents directory: `records/`, `journal/` and `content/` go below it. */
  readonly dir: string;
  readonly log: Logger;
  readonly fs?: FsLayer;
}

/**
 * What a write decides, given the current record (undefined when the id is free): the new record, `null` to remove
 * it for good, or a throw to refuse (nothing changes). It runs while no other write to the id can.
 */
export type Decide<T> = (current: StoredDocument | undefined) => { readonly next: StoredDocument | null; readonly result: T };

export interface DocumentStore {
  /** Every record, trashed ones included (their `trashed` says so). */
  get(id: string): StoredDocument | undefined;
  all(): IterableIterator<StoredDocument>;
  /** Changes whenever a record does: what is derived from `all()` (a sorted listing) holds while it stays the same. */
  readonly revision: number;
  /** A new upload's file; pass its name in a record, or discard it. */
  upload(): ContentUpload;
  /**
   * A record's content: its bytes (from memory after the first read) unless it is too large to keep, then its file
   * opened; undefined when a newer write replaced the file meanwhile (read the record again).
   */
  readContent(record: StoredDocument): Promise<Buffer | ReadStream | undefined>;
  /** A record's content when its bytes are in memory now; undefined otherwise (readContent then reads them). */
  heldContent(record: StoredDocument): Buffer | undefined;
  /**
   * Runs `decide` for the id, one write per id at a time, and resolves once its outcome is durable (journalled). The
   * content file the new record stops referring to is removed afterwards.
   */
  write<T>(id: string, decide: Decide<T>): Promise<T>;
  /**
   * The id of a record whose id differs from `id` only in letter case, if any. Records are files named by id, which
   * a case-insensitive file system (macOS's, Windows') would hold as one: writes to such ids run one at a time, and
   * the service refuses a new id that has a twin.
   */
  caseTwin(id: string): string | undefined;
  /** Resolves once every acknowledged write is in its record file. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Documents of one environment. Records (metadata and which content file) are small JSON, acknowledged from the
 * dashboards' write-ahead journal (JournaledFiles) and materialised as `records/<id>.json`; all of them are held in
 * memory for listing and filtering. Contents are files of their own, written durably before the record that refers
 * to them; the small ones are kept in memory once read (ContentCache), as reads far outnumber writes. At start the journal is replayed, then content files no record refers to are
 * removed.
 */
export async function openDocumentStore({ dir, log, fs = nodeFs }: DocumentStoreOptions): Promise<DocumentStore> {
  const recordsDir = join(dir, 'records');
  await mkdirDurable(dir, fs);
  await mkdirDurable(recordsDir, fs);
  await removeWriteLeftovers(recordsDir, log, fs);
  const {
    files,
    loaded: { contents, index },
  } = await JournaledFiles.openWith({ dir: recordsDir, journalDir: join(dir, 'journal'), fs, log }, async () => {
    const contents = await ContentFiles.open(join(dir, 'content'), fs);
    const index = await loadRecords(recordsDir, log);
    const swept = await contents.sweep(new Set([...index.values()].map((record) => record.content.file)));
    if (swept > 0) log.info({ dir, files: swept }, 'removed content files no document refers to');
    return { contents, index };
  });
  const byFoldedId = new Map([...index.keys()].map((id) => [id.toLowerCase(), id]));
  log.info({ dir, documents: index.size }, 'document store opened');
  const queue = new KeyedSerializer();
  const cache = new ContentCache();
  let revision = 0;
  let closed = false;

  return {
    get: (id) => index.get(id),
    all: () => index.values(),
    get revision() {
      return revision;
    },
    upload: () => contents.upload(),
    heldContent: (record) => cache.get(record.content.file),
    async readContent(record) {
      const { file, size } = record.content;
      const held = cache.get(file);
      if (held) return held;
      try {
        // Opened now, not when the stream first reads: a write that replaces the file may unlink it meanwhile.
        if (size > cache.entryLimit) return (await open(contents.path(file), 'r')).createReadStream();
        const bytes = await readFile(contents.path(file));
        // A write that replaced the file while it was read has dropped it from the cache already: not kept again.
        if (index.get(record.id)?.content.file === file) cache.admit(file, bytes);
        return bytes;
      } catch (error) {
        ignoreMissing(error);
        return undefined;
      }
    },
    write(id, decide) {
      if (closed) return Promise.reject(new StoreError('STORE_CLOSED', 'The document store is shutting down.'));
      if (!isDocumentId(id)) return Promise.reject(new StoreError('STORE_IO', `Not a document id: ${id.slice(0, 100)}`));
      return queue.run(id.toLowerCase(), async () => {
        const current = index.get(id);
        const { next, result } = decide(current);
        await files.write({ id, contents: next === null ? null : serialiseRecord(next) });
        if (next === null) {
          index.delete(id);
          byFoldedId.delete(id.toLowerCase());
        } else {
          index.set(id, next);
          byFoldedId.set(id.toLowerCase(), id);
        }
        revision += 1;
        if (current && current.content.file !== next?.content.file) {
          cache.drop(current.content.file);
          await contents.remove(current.content.file);
        }
        return result;
      });
    },
    caseTwin(id) {
      const twin = byFoldedId.get(id.toLowerCase());
      return twin === id ? undefined : twin;
    },
    flushed: () => files.flushed(),
    async close() {
      closed = true;
      await queue.idle();
      await files.close();
    },
  };
}

/** Every `<id>.json` of the records directory; one that does not parse is reported and left out. */
async function loadRecords(dir: string, log: Logger): Promise<Map<string, StoredDocument>> {
  const index = new Map<string, StoredDocument>();
  const names = await readdir(dir).catch((error: unknown) => (ignoreMissing(error), [] as string[]));
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -'.json'.length);
    try {
      const record = StoredDocument.parse(JSON.parse(await readFile(join(dir, name), 'utf8')));
      if (record.id !== id || !isDocumentId(id)) throw new Error(`the record's id ${record.id} does not match its file name`);
      index.set(id, record);
    } catch (error) {
      log.error({ err: errorMessage(error), file: join(dir, name) }, 'a document record is damaged; it is left out');
    }
  }
  return index;
}

import { randomUUID as nodeRandomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import type { DashboardStub } from '../../schema/dashboard.js';
import { parseDashboardId, type DashboardId } from '../../schema/ids.js';
import { DEFAULT_CLUSTER_VERSION, recordOf, serialiseDocument, type DashboardRecord, type PreparedDashboard } from './dashboard-document.js';
import { JournaledFiles } from './journaled-files.js';
import { KeyedSerializer } from './keyed-serializer.js';
import { DEFAULT_HOT_BYTES, ServedBytesCache } from './served-bytes.js';
import { StoreError } from './store-error.js';
import { loadStoreDir } from './store-recovery.js';

export interface DashboardStoreOptions {
  /** The environment's dashboards directory; created if missing. */
  readonly dir: string;
  /** Where the write-ahead journal lives; default `dashboards-journal/` beside `dir`. */
  readonly journalDir?: string;
  readonly log: Logger;
  readonly fs?: FsLayer;
  readonly clock?: Clock;
  readonly randomUUID?: () => string;
  readonly clusterVersion?: string;
  /** GET bodies kept uncompressed, in bytes (served-bytes.ts); default DEFAULT_HOT_BYTES. */
  readonly hotBytes?: number;
}

export interface DashboardListFilter {
  readonly owner?: string;
  /** A dashboard matches when it carries every one of these tags. */
  readonly tags?: readonly string[];
}

export interface WriteResult {
  readonly id: DashboardId;
  readonly name: string;
  /** PUT only: true when the call created the dashboard. */
  readonly created: boolean;
}

export interface DashboardStore {
  get(id: DashboardId): DashboardRecord | undefined;
  list(filter?: DashboardListFilter): DashboardStub[];
  create(body: PreparedDashboard): Promise<WriteResult>;
  put(id: DashboardId, body: PreparedDashboard): Promise<WriteResult>;
  remove(id: DashboardId): Promise<boolean>;
  /** Resolves once every acknowledged write is in its `<id>.json` (writes are acknowledged from the journal). */
  flushed(): Promise<void>;
  /** Refuses new writes, waits for the ones in flight. */
  close(): Promise<void>;
  readonly size: number;
  /** GET bodies currently held uncompressed, in bytes: within the `hotBytes` budget (or one body over it). */
  readonly hotBytes: number;
}

/**
 * One JSON file per dashboard (`<id>.json`) with an in-memory index. A write resolves once its record is durable in
 * the write-ahead journal (one synchronous write acknowledges every write of a batch); the file is written from it
 * afterwards, durably, and a restart replays whatever a crash left in the journal. The index changes only after the
 * journal write returns, so a reader never sees a version that a crash could take back. Writes to one id are
 * serialised.
 */
export async function openDashboardStore({
  dir,
  journalDir = join(dirname(dir), 'dashboards-journal'),
  log,
  fs = nodeFs,
  clock = systemClock,
  randomUUID = nodeRandomUUID,
  clusterVersion = DEFAULT_CLUSTER_VERSION,
  hotBytes = DEFAULT_HOT_BYTES,
}: DashboardStoreOptions): Promise<DashboardStore> {
  const cache = new ServedBytesCache(hotBytes);
  const { files, loaded } = await JournaledFiles.openWith({ dir, journalDir, fs, log }, () => loadStoreDir({ dir, fs, log, now: () => clock.now(), clusterVersion, cache }));
  const index = new Map<DashboardId, DashboardRecord>(loaded.map((record) => [record.id, record]));
  const reserved = new Set<DashboardId>();
  const queue = new KeyedSerializer();
  let closed = false;
  log.info({ dir, dashboards: index.size }, 'dashboard store opened');

  const assertOpen = (): void => {
    if (closed) throw new StoreError('STORE_CLOSED', 'The dashboard store is shutting down.');
  };

  const write = async (id: DashboardId, body: PreparedDashboard): Promise<WriteResult> => {
    const previous = index.get(id);
    const version = (previous?.version ?? 0) + 1;
    const { bytes, file } = serialiseDocument(id, version, clusterVersion, body);
    await files.write({ id, contents: file });
    const record = recordOf(id, version, body, cache.admit(bytes));
    index.set(id, record);
    previous?.served.retire();
    return { id, name: record.name, created: previous === undefined };
  };

  const newId = (): DashboardId => {
    for (;;) {
      const id = parseDashboardId(randomUUID());
      if (!id) throw new StoreError('STORE_IO', 'The id generator produced a value that is not a UUID.');
      if (!index.has(id) && !reserved.has(id)) return id;
    }
  };

  return {
    get: (id) => index.get(id),
    list: (filter = {}) => listRecords(index.values(), filter),
    get size() {
      return index.size;
    },
    get hotBytes() {
      return cache.hotBytes;
    },
    async create(body) {
      assertOpen();
      const id = newId();
      reserved.add(id);
      try {
        return await queue.run(id, () => write(id, body));
      } finally {
        reserved.delete(id);
      }
    },
    async put(id, body) {
      assertOpen();
      return queue.run(id, () => write(id, body));
    },
    async remove(id) {
      assertOpen();
      return queue.run(id, async () => {
        const previous = index.get(id);
        if (!previous) return false;
        await files.write({ id, contents: null });
        index.delete(id);
        previous.served.retire();
        return true;
      });
    },
    flushed: () => files.flushed(),
    async close() {
      closed = true;
      await queue.idle();
      await files.close();
    },
  };
}

function listRecords(records: Iterable<DashboardRecord>, { owner, tags = [] }: DashboardListFilter): DashboardStub[] {
  const stubs: DashboardStub[] = [];
  for (const record of records) {
    if (owner !== undefined && record.owner !== owner) continue;
    if (!tags.every((tag) => record.tags.includes(tag))) continue;
    stubs.push({ id: record.id, name: record.name, owner: record.owner });
  }
  // A stable order (name, then id) so list output and anything rendered from it is reproducible.
  return stubs.sort((a, b) => compare(a.name ?? '', b.name ?? '') || compare(a.id, b.id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { Clock } from '../../lib/clock.js';
import type { FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { StoreError } from '../store/store-error.js';
import type { EventIndex } from './event-index.js';
import type { EventLog } from './event-log.js';
import type { EncodedEvent } from './event-record.js';
import { SPAN_SCRATCH_BYTES, type LogSpan } from './span-reader.js';
import type { EntitySighting, EventStore, KeyedEvent, PageBody, PageEnds, PageFrame, PutOutcome } from './event-store.js';
import { writeIndexSnapshot, type LogCoverage } from './index-snapshot.js';
import { queryIndex, type IndexPage, type PageRequest } from './index-query.js';
import { digitsOf, parseEncodedEventId, parseEventIdDigits } from './int64.js';
import type { OpenProblems } from './open-problems.js';
import { RecentPages } from './recent-pages.js';
import { BodySlabs } from './body-slabs.js';
import { FirstPageMemo } from './first-page-memo.js';

/**
 * First pages kept for being asked again: some fifty pages of 150 typical events. A filtered page's events lie
 * scattered through the log, one positioned read each (150 for a page of one entity's events, against one read for an
 * unfiltered page: 0.3 against 0.05 ms); a kept page is one copy.
 */
const RECENT_PAGE_BYTES = 4 << 20;
/** First pages whose index answer is kept (see FirstPageMemo): a few hundred bytes each. */
const FIRST_PAGES_KEPT = 64;
/** Bodies are cut from slabs of this size: some twenty pages of 150 typical events, besides a read's scratch room. */
const BODY_SLAB_BYTES = 1 << 20;
/** A response body has one byte between two texts (JSON's comma), where the log has its newline. */
const SEPARATOR_BYTES = 1;
/** The most bytes of event texts one feed page carries: half of what dashcd's client reads of an answer. */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024;

export interface FileEventStoreParts {
  readonly dir: string;
  readonly cursorKey: Buffer;
  readonly clock: Clock;
  readonly problems: OpenProblems;
  readonly index: EventIndex;
  readonly log: EventLog;
  readonly logger: Logger;
  readonly fs: FsLayer;
  readonly bulkThreshold: number;
  /** The log as scanned at open, and how much of it the snapshot on disk covers. */
  readonly lines: number;
  readonly snapshotBytes: number;
}

/** The EventStore over one events directory (see openEventStore). */
export class FileEventStore implements EventStore {
  readonly dir: string;
  readonly cursorKey: Buffer;
  readonly clock: Clock;
  readonly problems: OpenProblems;
  private readonly index: EventIndex;
  private readonly log: EventLog;
  private readonly recent = new RecentPages(RECENT_PAGE_BYTES);
  private readonly bodies = new BodySlabs(BODY_SLAB_BYTES);
  private readonly firstPages = new FirstPageMemo(FIRST_PAGES_KEPT);
  /** Counts the writes: what the store holds changes with each. */
  private generation = 0;
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;
  private lines: number;

  constructor(private readonly parts: FileEventStoreParts) {
    ({ dir: this.dir, cursorKey: this.cursorKey, clock: this.clock, problems: this.problems, index: this.index, log: this.log } = parts);
    this.lines = parts.lines;
  }

  get size(): number {
    return this.index.size;
  }

  put(events: readonly EncodedEvent[]): Promise<PutOutcome> {
    if (this.closed) return Promise.reject(this.closedError());
    const run = this.writing.then(() => this.append(events));
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async append(events: readonly EncodedEvent[]): Promise<PutOutcome> {
    if (events.length === 0) return { created: 0, replaced: 0 };
    const spans = await this.log.append(events.map((event) => event.text));
    this.generation += 1;
    this.lines += events.length;
    const bulk = events.length > this.parts.bulkThreshold;
    if (bulk) this.index.beginBulk();
    let created = 0;
    events.forEach((event, i) => {
      const span = spans[i] as LogSpan;
      if (this.index.upsert(event.fields, span.offset, span.length) === 'created') created++;
    });
    if (bulk) this.index.endBulk();
    return { created, replaced: events.length - created };
  }

  async queryBody(request: PageRequest, frame: (ends: PageEnds) => PageFrame): Promise<PageBody> {
    this.ensureOpen();
    const found = this.firstPages.get(request, this.generation) ?? this.query(request);
    const spans = withinPageBytes(found.slots.map((slot) => this.spanOf(slot)));
    const page = spans.length === found.slots.length ? found : { slots: found.slots.slice(0, spans.length), next: found.slots[spans.length], total: found.total };
    const { head, separator, tail } = frame(this.ends(page));
    const texts = spans.reduce((sum, span) => sum + span.length + SEPARATOR_BYTES, 0);
    const blockEnd = head.length + Math.max(0, texts - SEPARATOR_BYTES);
    const size = blockEnd + tail.length;
    const { slab, at: start, giveBack } = this.bodies.take(size, SPAN_SCRATCH_BYTES);
    const places = new Array<number>(spans.length);
    let at = start + head.length;
    spans.forEach((span, i) => {
      places[i] = at;
      at += span.length + SEPARATOR_BYTES;
    });
    head.copy(slab, start);
    try {
      this.readBlock(spans, slab, places, start + size, separator, request.after === undefined);
    } catch (error) {
      // No body leaves: its room may be cut again (a log shorter than its index is reported, not fatal).
      giveBack();
      throw error;
    }
    tail.copy(slab, start + blockEnd);
    return { bytes: slab.subarray(start, start + size), giveBack };
  }

  async get(id: string): Promise<Buffer | undefined> {
    this.ensureOpen();
    const parsed = parseEncodedEventId(id);
    if (!parsed) return undefined;
    const slot = this.index.ids.find(parsed.startTime, parsed.words.hi, parsed.words.lo);
    if (slot === undefined) return undefined;
    const [text] = this.log.read([this.spanOf(slot)]);
    return text;
  }

  async findByEventId(eventId: string): Promise<Buffer | undefined> {
    this.ensureOpen();
    const words = parseEventIdDigits(eventId);
    if (!words) return undefined;
    const { hi, lo, start } = this.index.columns;
    let found = -1;
    for (let slot = 0; slot < this.index.size; slot++) {
      if (hi[slot] === words.hi && lo[slot] === words.lo && (found < 0 || (start[slot] ?? 0) > (start[found] ?? 0))) found = slot;
    }
    return found < 0 ? undefined : this.log.read([this.spanOf(found)])[0];
  }

  entityIds(): string[] {
    const ids: string[] = [];
    for (let code = 1; code < this.index.entities.size; code++) {
      const name = this.index.entities.nameOf(code);
      if (name !== undefined && (this.index.entityList(code)?.length ?? 0) > 0) ids.push(name);
    }
    return ids;
  }

  async newestEventOf(entityId: string): Promise<EntitySighting | undefined> {
    const code = this.index.entities.find(entityId);
    const list = code === undefined ? undefined : this.index.entityList(code);
    if (!list || list.length === 0) return undefined;
    const slot = list.at(list.length - 1);
    const [text] = this.log.read([this.spanOf(slot)]);
    const end = this.index.columns.end[slot] ?? Number.NEGATIVE_INFINITY;
    return {
      entityId,
      text: text as Buffer,
      startTime: this.index.columns.start[slot] ?? 0,
      endTime: end === Number.NEGATIVE_INFINITY ? undefined : end,
    };
  }

  async openEvents(): Promise<Buffer[]> {
    this.ensureOpen();
    const { end } = this.index.columns;
    const spans: LogSpan[] = [];
    for (let slot = 0; slot < this.index.size; slot++) if (end[slot] === Number.NEGATIVE_INFINITY) spans.push(this.spanOf(slot));
    return this.log.read(spans);
  }

  /** Lets writes finish, then leaves an index snapshot for a fast next start (a failure only costs that). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    await this.log.close();
    if (this.log.bytes === this.parts.snapshotBytes) return;
    const coverage: LogCoverage = { bytes: this.log.bytes, lines: this.lines };
    await writeIndexSnapshot(this.dir, this.index, coverage, this.parts.fs).catch((error: unknown) => {
      this.parts.logger.warn({ dir: this.dir, err: error }, 'could not write the index snapshot: the next start scans the log');
    });
  }

  /**
   * Puts the texts at their places in `slab`, `separator` between them; the slab's room from `scratchAt` on is the
   * reads' scratch (BodySlabs.take).
   * `first`: a first page is what is asked again and again (a console view or a script polling the newest events), so
   * its block is kept; a later page is walked once by a client following nextCursor, and keeping it would only cost a
   * copy.
   */
  private readBlock(spans: readonly LogSpan[], slab: Buffer, places: readonly number[], scratchAt: number, separator: number, first: boolean): void {
    const last = spans.length - 1;
    if (last < 0) return;
    const kept = first && this.recent.copyInto(spans, slab, places[0] ?? 0);
    if (!kept) this.log.readInto(spans, slab, places, scratchAt);
    for (let i = 0; i < last; i++) slab[(places[i] ?? 0) + (spans[i] as LogSpan).length] = separator;
    if (first && !kept) this.recent.set(spans, slab.subarray(places[0], (places[last] ?? 0) + (spans[last] as LogSpan).length));
  }

  private query(request: PageRequest): IndexPage {
    const page = queryIndex(this.index, request);
    this.firstPages.set(request, this.generation, page);
    return page;
  }

  private ends(page: IndexPage): PageEnds {
    const lastSlot = page.slots[page.slots.length - 1];
    return {
      last: lastSlot === undefined ? undefined : this.keyed(lastSlot),
      next: page.next === undefined ? undefined : this.keyed(page.next),
      total: page.total,
    };
  }

  private spanOf(slot: number): LogSpan {
    const c = this.index.columns;
    return { offset: c.offset[slot] ?? 0, length: c.length[slot] ?? 0 };
  }

  private keyed(slot: number): KeyedEvent {
    const c = this.index.columns;
    const key = { start: c.start[slot] ?? 0, hi: c.hi[slot] ?? 0, lo: c.lo[slot] ?? 0 };
    return { key, eventId: digitsOf(key.hi, key.lo) };
  }

  private ensureOpen(): void {
    if (this.closed) throw this.closedError();
  }

  private closedError(): StoreError {
    return new StoreError('STORE_CLOSED', `the event store in ${this.dir} is closed`);
  }
}

/**
 * A page's spans cut before the one that would take its texts past MAX_PAGE_BYTES (never below one event): the rest
 * come on the next page, as keyset paging starts after the last one given. Events of up to 1 MB each (a push body's
 * size) made 150-event pages larger than any client reads (dashcd's reads 16 MiB), and an archive's pull could not go
 * past them.
 */
function withinPageBytes(spans: LogSpan[]): LogSpan[] {
  let bytes = 0;
  for (const [i, span] of spans.entries()) {
    bytes += span.length + SEPARATOR_BYTES;
    if (bytes > MAX_PAGE_BYTES && i > 0) return spans.slice(0, i);
  }
  return spans;
}

import type { Clock } from '../../lib/clock.js';
import type { EncodedEvent } from './event-record.js';
import type { FeedKey, PageRequest } from './index-query.js';
import type { OpenProblems } from './open-problems.js';

export interface PutOutcome {
  readonly created: number;
  readonly replaced: number;
}

/** An event's place in feed order with its id digits, for cursors and `nextEventId`. */
export interface KeyedEvent {
  readonly key: FeedKey;
  readonly eventId: string;
}

/** Where a page ends: what its cursor and `nextEventId` are made of. */
export interface PageEnds {
  readonly last: KeyedEvent | undefined;
  readonly next: KeyedEvent | undefined;
  readonly total: number | undefined;
}

/** What surrounds a page's texts in a response body: `head`, the texts `separator` apart, `tail`. */
export interface PageFrame {
  readonly head: Buffer;
  /** One byte (a character code below 128). */
  readonly separator: number;
  readonly tail: Buffer;
}

/** A page's response body, on loan from a buffer other bodies are cut from: `giveBack` once it is sent or copied. */
export interface PageBody {
  readonly bytes: Buffer;
  /** The bytes may be written over from now on; a body never given back only keeps its buffer from reuse. */
  readonly giveBack: () => void;
}

export interface EntitySighting {
  readonly entityId: string;
  /** The newest event of the entity, as stored. */
  readonly text: Buffer;
  readonly startTime: number;
  readonly endTime: number | undefined;
}

/**
 * The events of one environment: a durable append-only log plus an in-memory index (see event-index.ts). Events
 * are immutable texts; a later text with the same `id` replaces the earlier one (how an open event closes).
 */
export interface EventStore {
  readonly dir: string;
  /** Distinct events stored. */
  readonly size: number;
  /** The HMAC key for this store's cursors, kept in the events directory. */
  readonly cursorKey: Buffer;
  readonly clock: Clock;
  /** Timeouts of pushed problem events that are still open. */
  readonly problems: OpenProblems;
  /** Appends and indexes; durable when it resolves. Writes are serialised. */
  put(events: readonly EncodedEvent[]): Promise<PutOutcome>;
  /**
   * A page as one response body, `frame(ends)` around its texts (raw event texts, UTF-8 JSON without a newline, newest
   * first): each text is read from the log straight into its place, with no buffer or object per text (what a full
   * pass of pages spent its time and collections on).
   */
  queryBody(request: PageRequest, frame: (ends: PageEnds) => PageFrame): Promise<PageBody>;
  /** The current text of the event with this encoded id (`<eventId>_<startTime>`). */
  get(id: string): Promise<Buffer | undefined>;
  /** The newest event with this bare event id (a linear scan of two columns: a few ms per million events). */
  findByEventId(eventId: string): Promise<Buffer | undefined>;
  /** Entity ids that have at least one event. */
  entityIds(): string[];
  newestEventOf(entityId: string): Promise<EntitySighting | undefined>;
  /** Texts of every event without an end time. */
  openEvents(): Promise<Buffer[]>;
  close(): Promise<void>;
}


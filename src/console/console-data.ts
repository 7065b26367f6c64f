import type { PlanChange } from '../plan/build-plan.js';

/**
 * What the console reads, whoever serves it. `serve` knows only the live side (classic dashboards, platform
 * dashboards and notebooks, and the events feed);
 * the daemon knows the desired state too (what its last pass planned and did per file, its revision). The console
 * renders these values and never writes, nor reads the target.
 */
export interface ConsoleSource {
  /** `live`: no desired state (serve), dashboards have no sync status. */
  readonly kind: 'live' | 'desired';
  environments(): Promise<ConsoleEnvironment[]>;
  dashboards(env: string): Promise<DashboardsState | undefined>;
  /**
   * The newest events that started in [from, to) and pass the filter, each once (its newest version), at most
   * MAX_CONSOLE_EVENTS: the filter applies as they are read, so an old event of a rare type is still found.
   */
  events(env: string, window: { from: number; to: number }, filter: EventFilter): Promise<ConsoleEvents>;
}

/**
 * The most events one events page reads, the newest of its window. Every view held its whole window: a week of a
 * busy archive (775,000 events) took ~90 MB a view, and sixteen views at once, on loopback with no token, ran the
 * daemon out of memory.
 */
export const MAX_CONSOLE_EVENTS = 3_000;

/**
 * The most event types an events page offers to filter by. The types come from every event read (a filtered view reads
 * a whole week): 200,000 types of their own made one view a 26 MB page.
 */
export const MAX_LISTED_TYPES = 200;

export interface ConsoleEvents {
  readonly events: readonly ConsoleEvent[];
  /** The window holds older events passing the filter than these, left unread. */
  readonly cut: boolean;
  /** The event types of every event read, whatever the filter: what the type filter offers. */
  readonly types: readonly string[];
}

/**
 * Thrown by a source whose reads are all taken (the daemon reads its archive one window at a time, a few waiting):
 * the console answers 503 with Retry-After rather than queue without end.
 */
export class ConsoleBusyError extends Error {}

export interface ConsoleEnvironment {
  name: string;
  /** Where it lives (a URL or the embedded `/e/<name>`), never a token. */
  target: string;
  /** The revision the daemon applied last, e.g. `a1b2c3d on main`. */
  revision?: string | undefined;
  /** Why it may not be in sync (stale reasons, a failed pass). */
  notes?: readonly string[];
}

export type DashboardsState =
  | { kind: 'live'; dashboards: readonly LiveEntry[] }
  | {
      kind: 'desired';
      /** Each dashboard as the last pass left it: `unchanged` once written, the change itself while drift is reported. */
      changes: readonly PlanChange[];
      problems: readonly ConsoleProblem[];
      /** The daemon loop's last result per file (`failed`, `rejected`…), with its error. */
      results: Readonly<Record<string, { result: string; error?: string | undefined; at: string }>>;
      revision?: string | undefined;
      /**
       * Each file's dashboard by id, for those the change carries no body for (unchanged): its document kind, and its
       * body (its layout, at least) read only when a page draws it (the daemon keeps layouts packed).
       */
      shown?: Readonly<Record<string, { readonly documentKind?: 'dashboard' | 'notebook' | undefined; body(): unknown }>>;
      /** Owned live items without a file found by the daemon's last full pass (the plan may not list them). */
      orphans?: readonly { id: string; name: string; kind?: 'dashboard' | 'document' }[];
    };

export interface LiveEntry {
  id: string;
  name: string;
  /** A platform dashboard's or notebook's kind, as its listing says; undefined for a classic dashboard. */
  documentKind?: 'dashboard' | 'notebook' | undefined;
  /**
   * The whole dashboard, for its layout preview — a classic dashboard, or a platform dashboard or notebook in its file
   * form (`document:` beside the content) — read only by the one page that draws it, never for a list.
   */
  body(): Promise<unknown>;
}

/** A validation problem at `file:line:col`. */
export interface ConsoleProblem {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

export interface ConsoleEvent {
  id: string;
  type: string;
  start: number;
  end: number | undefined;
  status: 'OPEN' | 'CLOSED';
  entity: string | undefined;
}

/** The events page's filter, as its query string gives it: each member absent when not asked for. */
export interface EventFilter {
  readonly type?: string | undefined;
  readonly status?: string | undefined;
  /** Part of the entity or event id, in any case. */
  readonly text?: string | undefined;
}

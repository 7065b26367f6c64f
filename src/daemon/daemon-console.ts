import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { newestEvents, type ArchivedEventView, type ArchiveFilter } from '../archive/query-archive.js';
import type { ConsoleTokens } from '../console/console-access.js';
import { createConsoleHandler, MAX_EVENT_HOURS } from '../console/console-handler.js';
import { ConsoleBusyError, MAX_CONSOLE_EVENTS, MAX_LISTED_TYPES, type ConsoleEvent, type ConsoleEvents, type ConsoleSource, type DashboardsState, type EventFilter } from '../console/console-data.js';
import { eventMatches, filterKey } from '../console/event-filter.js';
import { concurrencyLimit, QueueFullError } from '../lib/concurrency.js';
import { sharedWhileRunning } from '../lib/in-flight.js';
import type { LoopTarget } from './daemon-endpoint.js';
import { unpackLayout } from './packed-layout.js';
import type { DaemonStatus } from './daemon-status.js';
import type { LoopStatusJson } from './status-schema.js';

/** What the console needs of one reconcile loop. */
export interface ConsoleLoop {
  /** The environment's name; undefined for the daemon's one target (shown as its archive folder's name). */
  name: string | undefined;
  target: LoopTarget;
  status: DaemonStatus;
}

interface Context {
  cwd: string;
  archiveDir: string;
  signal: AbortSignal;
}

/**
 * The daemon's console data, all of it what the loops already know: per loop the last pass's dashboard per file (its
 * layout, its pending change), its last write result per file, its problems, orphans and revision, and its events
 * archive. A page view reads nothing from the target: the console never multiplies a rate-limited target's requests,
 * and it shows the same in each mode (a folder, a repository, environments).
 */
export function daemonConsoleSource(loops: readonly ConsoleLoop[], context: Context): ConsoleSource {
  const find = (env: string): ConsoleLoop | undefined => loops.find((loop) => nameOf(loop) === env);
  // Views asking the same share a read; other reads wait their turn, a few at most: each holds a day of the archive
  // while it folds that day's versions.
  const shared = sharedWhileRunning();
  const oneRead = concurrencyLimit(1, WAITING_READS);
  return {
    kind: 'desired',
    environments: () =>
      Promise.resolve(loops.map((loop) => ({ name: nameOf(loop), target: loop.target.label, revision: revisionOf(loop.status.loopJSON()), notes: loop.status.staleReasons() }))),
    dashboards(env) {
      const loop = find(env);
      return Promise.resolve(loop ? dashboardsOf(loop.status) : undefined);
    },
    async events(env, window, filter) {
      const loop = find(env);
      if (!loop) return { events: [], cut: false, types: [] };
      // Every window of a page ends at the same hour: one read of the widest serves them all (`hours=1` to 168 were
      // 168 reads), each view keeping what started in its own.
      const from = window.to - MAX_EVENT_HOURS * HOUR;
      const archive = { archiveDir: resolve(context.cwd, context.archiveDir), env: loop.target.env, from, to: window.to - 1, signal: context.signal };
      const read = await shared(`${env} ${window.to} ${filterKey(filter)}`, () => oneRead(() => newestArchived(archive, filter))).catch((error: unknown) => {
        throw error instanceof QueueFullError ? new ConsoleBusyError('The events archive is being read for other views; try again in a few seconds.') : error;
      });
      return within(read, window.from);
    },
  };
}

/** Reads waiting for the one running at most; a view past them is answered 503. */
const WAITING_READS = 4;
const HOUR = 3_600_000;

/**
 * The newest MAX_CONSOLE_EVENTS events of the window passing the filter, each by its newest version, newest first:
 * only the days they lie in are read (all of the window's when few pass).
 */
export async function newestArchived(archive: ArchiveFilter, filter: EventFilter): Promise<ConsoleEvents> {
  const events: ConsoleEvent[] = [];
  const types = new Set<string>();
  const seen = (view: ArchivedEventView): void => {
    if (types.size < MAX_LISTED_TYPES) types.add(view.eventType ?? UNKNOWN_TYPE);
  };
  // The type is every version's, so it filters as lines are read; the status and the entity's name are the newest
  // version's (a later one may add the name), so they filter once a day is folded.
  const { type, ...ofNewest } = filter;
  const keep = type === undefined ? undefined : (view: ArchivedEventView): boolean => eventMatches(consoleEvent(view), { type });
  const wanted = ofNewest.status === undefined && ofNewest.text === undefined ? undefined : (view: ArchivedEventView): boolean => eventMatches(consoleEvent(view), ofNewest);
  for await (const { event } of newestEvents({ ...archive, limit: MAX_CONSOLE_EVENTS, keep, wanted, onRead: seen })) {
    if (events.length === MAX_CONSOLE_EVENTS) return { events, cut: true, types: [...types] };
    events.push(consoleEvent(event));
  }
  return { events, cut: false, types: [...types] };
}

/**
 * The part of a read of a wider window (newest first) that started from `from` on. It may hold more only when the
 * read was cut before it reached back past `from`.
 */
export function within(read: ConsoleEvents, from: number): ConsoleEvents {
  const oldest = read.events.at(-1);
  return { events: read.events.filter((e) => e.start >= from), cut: read.cut && (oldest === undefined || oldest.start >= from), types: read.types };
}

function nameOf(loop: ConsoleLoop): string {
  return loop.name ?? loop.target.env;
}

export function dashboardsOf(status: DaemonStatus): DashboardsState {
  const json = status.loopJSON();
  const shown = status.shownDashboards();
  return {
    kind: 'desired',
    changes: shown.map(([file, d]) => d.pending ?? { action: 'unchanged', id: d.id, name: d.name, file }),
    shown: Object.fromEntries(shown.map(([, d]) => [d.id, { documentKind: d.documentKind, body: () => unpackLayout(d.layout) }])),
    problems: status.problems(),
    results: json.files,
    revision: revisionOf(json),
    orphans: json.orphans,
  };
}

function revisionOf(json: LoopStatusJson): string | undefined {
  const live = json.source?.live;
  if (live && json.source) return `${live.shortCommit} (${json.source.follow})`;
  const git = json.git;
  if (!git?.shortCommit) return undefined;
  return `${git.shortCommit}${git.branch ? ` on ${git.branch}` : ''}${git.dirty ? ' + uncommitted changes' : ''}`;
}

/**
 * The console route for the daemon's listener, given once the loops exist: on a non-loopback address the embedded
 * API's tokens open it, per environment and scope as on the API; without an embedded API it answers on loopback only.
 */
export function daemonConsole(loops: readonly ConsoleLoop[], context: Context & { host: string; tokens: ConsoleTokens | undefined }): (req: IncomingMessage, res: ServerResponse) => boolean {
  return createConsoleHandler(daemonConsoleSource(loops, context), { host: context.host, tokens: context.tokens });
}

/** The type the console shows an event without one under. */
const UNKNOWN_TYPE = 'unknown';

/** An archived or fed event as the console lists it; one without a status is open until it has an end. */
export function consoleEvent(view: ArchivedEventView): ConsoleEvent {
  const open = view.eventStatus === undefined ? view.endTime === undefined : view.eventStatus === 'OPEN';
  return { id: view.id, type: view.eventType ?? UNKNOWN_TYPE, start: view.startTime, end: view.endTime, status: open ? 'OPEN' : 'CLOSED', entity: view.entityName ?? view.entityId };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { queryArchive, type ArchivedEventView } from '../archive/query-archive.js';
import { createConsoleHandler } from '../console/console-handler.js';
import { type ConsoleEvent, type ConsoleSource, type DashboardsState } from '../console/console-data.js';
import type { Logger } from '../lib/logger.js';
import { planDashboards, type PlanContext } from '../reconcile/plan-dashboards.js';
import { planEnvironment } from '../reconcile/plan-environment.js';
import type { LoopTarget } from './daemon-endpoint.js';
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
  dir: string;
  cwd: string;
  archiveDir: string;
  concurrency: number;
  log: Logger;
  signal: AbortSignal;
  /** Following a repository the files are a checkout the passes own: no fresh plan, the loop's status only. */
  following: boolean;
}

/**
 * The daemon's console data: per loop a fresh read-only plan (live against the files, so drift shows as it is now,
 * not as of the last pass), the loop's last write result per file, its orphans and revision, and its events archive.
 */
export function daemonConsoleSource(loops: readonly ConsoleLoop[], context: Context): ConsoleSource {
  const find = (env: string): ConsoleLoop | undefined => loops.find((loop) => nameOf(loop) === env);
  return {
    kind: 'desired',
    environments: () =>
      Promise.resolve(loops.map((loop) => ({ name: nameOf(loop), target: loop.target.label, revision: revisionOf(loop.status.loopJSON()), notes: notesOf(loop) }))),
    async dashboards(env) {
      const loop = find(env);
      return loop ? dashboardsOf(loop, context) : undefined;
    },
    async events(env, window) {
      const loop = find(env);
      if (!loop) return [];
      const events: ConsoleEvent[] = [];
      const archive = { archiveDir: resolve(context.cwd, context.archiveDir), env: loop.target.env, from: window.from, to: window.to - 1, latest: true, signal: context.signal };
      for await (const { event } of queryArchive(archive)) events.push(consoleEvent(event));
      return events;
    },
  };
}

function nameOf(loop: ConsoleLoop): string {
  return loop.name ?? loop.target.env;
}

async function dashboardsOf(loop: ConsoleLoop, context: Context): Promise<DashboardsState> {
  if (context.following) {
    const json = loop.status.loopJSON();
    return { kind: 'desired', plan: undefined, problems: [], results: json.files, revision: revisionOf(json), orphans: json.orphans };
  }
  const ctx: PlanContext = { dir: context.dir, cwd: context.cwd, api: loop.target.client, targetLabel: loop.target.label, log: context.log, concurrency: context.concurrency, signal: context.signal };
  const options = { tolerateInvalid: true };
  const result = loop.name === undefined ? await planDashboards(ctx, options) : await planEnvironment(loop.name, ctx, options);
  const json = loop.status.loopJSON();
  return {
    kind: 'desired',
    plan: result.kind === 'planned' ? result.plan : undefined,
    bodies: Object.fromEntries((result.desired?.dashboards ?? []).map((d) => [d.id, d.body])),
    problems: result.diagnostics,
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

function notesOf(loop: ConsoleLoop): string[] {
  const last = loop.status.loopJSON().lastReconcile;
  const failed = last && !last.ok ? [`last pass failed: ${last.error ?? 'unknown error'}`] : [];
  return [...loop.status.staleReasons(), ...failed];
}

/**
 * The console route for the daemon's listener, given once the loops exist: the embedded API's tokens (ReadConfig)
 * open it on a non-loopback address; without an embedded API it answers on loopback only.
 */
export function daemonConsole(loops: readonly ConsoleLoop[], context: Context & { host: string; verify: ((token: string) => boolean) | undefined }): (req: IncomingMessage, res: ServerResponse) => boolean {
  return createConsoleHandler(daemonConsoleSource(loops, context), { host: context.host, verify: context.verify });
}

/** An archived or fed event as the console lists it; one without a status is open until it has an end. */
export function consoleEvent(view: ArchivedEventView): ConsoleEvent {
  const open = view.eventStatus === undefined ? view.endTime === undefined : view.eventStatus === 'OPEN';
  return { id: view.id, type: view.eventType ?? 'unknown', start: view.startTime, end: view.endTime, status: open ? 'OPEN' : 'CLOSED', entity: view.entityName ?? view.entityId };
}

import { followEvents, pullEvents, type PullEventsOptions, type PullProgress, type PullSummary } from '../../archive/pull-events.js';
import { expectedErrorsAsMessages } from '../../client/expected-errors.js';
import { EVENT_TYPES } from '../../schema/events.js';
import { EnvironmentId } from '../../schema/ids.js';
import { booleanFlag, defineCommand, listFlag, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { archiveFlag, dataFlag, sinceFlag, targetFlag } from '../common-flags.js';
import { envFlag } from '../environment-choice.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { closest } from '../parse-args.js';
import { pullFailure } from '../pull-failure.js';
import { durationFlag, lookbackFlag } from '../int-flag.js';
import { withOneTarget } from '../one-target.js';
import { archiveDirOf } from '../data-dir-default.js';
import type { Since } from '../../archive/pull-plan.js';

export const eventsPullCommand = defineCommand({
  path: ['events', 'pull'],
  summary: 'Archive the events feed into Hive-partitioned JSONL (loss-free, resumable)',
  description:
    'Pages through the feed and appends each event, exactly as the feed returned it, to\n' +
    '<archive>/<env>/date=YYYY-MM-DD/events.jsonl (UTC start day). Every event version (id, status, endTime) is\n' +
    'written once, ever: a run picks up where the last one stopped (checkpoint <archive>/<env>/_checkpoint.json),\n' +
    'a killed run resumes without loss or doubles, and open events are looked for again until they close.\n' +
    'Needs a token with scope DataExport. A run that cannot finish exits 4 (feed, or the archive’s disk full) or 1,\n' +
    'its checkpoint intact. With environments in dashcd.yaml, --env chooses the one to pull from, and <env> is its name;\n' +
    'without, <env> is --env or else the target’s environment (local for the embedded store).',
  flags: {
    target: targetFlag,
    data: dataFlag,
    archive: archiveFlag,
    env: { ...envFlag, description: 'The one environment of dashcd.yaml to pull from; without environments there, the name of the target’s folder in the archive (default: the target’s environment)' },
    since: sinceFlag,
    type: { type: 'string', description: 'Only events of this eventType', valueName: 'eventType' },
    entity: { type: 'string', description: 'Only events of this entity', valueName: 'entityId' },
    follow: { type: 'boolean', description: 'Keep polling until interrupted (Ctrl-C)' },
    interval: { type: 'string', description: 'Poll interval with --follow (default: 60s)', valueName: 'duration' },
  },
  examples: [
    'dashcd events pull',
    'DT_ENV_URL=https://abc123.live.dynatrace.com DT_API_TOKEN=… dashcd events pull --since 90d',
    'dashcd events pull --follow --interval 30s',
    'dashcd events pull --env prod --since 7d',
  ],
  async run({ flags }, io) {
    const now = Date.now();
    const request = parseRequest(flags, now);
    // A folder name and the archive are checked before any target opens (the embedded store would start only to be refused).
    for (const name of listFlag(flags, 'env')) archiveFolder(name, 'flag');
    const archiveDir = await archiveDirOf(stringFlag(flags, 'archive'), io.cwd, 'pull');
    return withOneTarget(flags, io, 'events pull', async (target) => {
      // The folder is the environment the events come from: a declared environment's name, else the target's.
      const env = archiveFolder(target.env, 'target');
      const reporter = createProgressReporter(io, target.label);
      const options: PullEventsOptions = {
        fetchPage: (query, signal) => target.client.events.fetchPageText(query, signal),
        archiveDir,
        env,
        since: request.since,
        eventType: request.eventType,
        entityId: request.entityId,
        log: expectedErrorsAsMessages(io.log.child({ component: 'events-pull' })),
        signal: io.signal,
        onProgress: reporter.update,
      };
      let summary: PullSummary;
      try {
        summary = request.follow ? await followEvents({ ...options, intervalMs: request.intervalMs }) : await pullEvents(options);
      } catch (error) {
        throw pullFailure(error, io.signal, `${options.archiveDir}/${env}`);
      } finally {
        reporter.stop();
      }
      io.stdout.write(renderSummary(summary, `${options.archiveDir}/${env}`));
      return ExitCode.Success;
    }, { scopes: ['DataExport'], envNamesTarget: true });
  },
});

interface PullRequest {
  readonly since: Since;
  readonly eventType: string | undefined;
  readonly entityId: string | undefined;
  readonly follow: boolean;
  readonly intervalMs: number;
}

function parseRequest(flags: FlagValues, now: number): PullRequest {
  const since = lookbackFlag(flags, 'since', now, String(sinceFlag.default));
  const eventType = eventTypeFlag(stringFlag(flags, 'type'));
  const intervalMs = durationFlag(flags, 'interval', 60_000, { minMs: 1000 });
  // Taken without --follow, it promised polling that never came (one pass, exit 0).
  if (stringFlag(flags, 'interval') !== undefined && !booleanFlag(flags, 'follow')) throw new UsageError('--interval sets how often --follow polls: add --follow, or leave --interval out for one pass');
  return { since, eventType, entityId: stringFlag(flags, 'entity'), follow: booleanFlag(flags, 'follow'), intervalMs };
}

/**
 * `--type` as the feed names it: in any letter case, as `events query --type` takes it (`custom_deployment` was
 * refused), and a misspelt one with the nearest the events API has.
 */
function eventTypeFlag(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const types: readonly string[] = EVENT_TYPES;
  const upper = raw.toUpperCase();
  if (types.includes(upper)) return upper;
  const near = closest(upper, types);
  throw new UsageError(`--type '${raw}' is not an event type of the events API${near === undefined ? ' (e.g. CUSTOM_DEPLOYMENT, AVAILABILITY_EVENT)' : ` — did you mean ${near}?`}`);
}

/** A folder name only as an environment id: neither --env nor a target URL's `/e/..` may lead out of the archive. */
function archiveFolder(env: string, from: 'flag' | 'target'): string {
  const parsed = EnvironmentId.safeParse(env);
  if (!parsed.success) {
    // A did-you-mean answers what was typed; a name from the target's URL is renamed with --env.
    const lower = from === 'flag' ? EnvironmentId.safeParse(env.toLowerCase()) : undefined;
    const meant = lower?.success ? ` — did you mean ${lower.data}?` : ': name one with --env';
    throw new UsageError(`'${env}' is not an environment id (lowercase letters, digits, dashes) to name an archive folder${meant}`);
  }
  return parsed.data;
}

function renderSummary(summary: PullSummary, where: string): string {
  const seconds = (summary.durationMs / 1000).toFixed(1);
  return (
    `${summary.written} new event versions in ${where} (${summary.events} fetched, ${summary.duplicates} already archived) ` +
    `in ${seconds}s, ${summary.eventsPerSecond} events/s; ${summary.openEvents} open events will be looked for again` +
    `${summary.watermark === null ? '' : `; archived up to ${new Date(summary.watermark).toISOString()}`}\n`
  );
}

/** How often the live line is redrawn, and how often a log line is written when stderr is not a terminal. */
const REDRAW_MS = 100;
const LOG_EVERY_MS = 5000;

/** In a terminal a live line on stderr; otherwise a pino line every few seconds (and one per completed pull). */
function createProgressReporter(io: CommandIo, label: string): { update: (progress: PullProgress) => void; stop: () => void } {
  const tty = io.stderr.isTTY === true;
  const log = io.log.child({ component: 'events-pull', target: label });
  let last = 0;
  let drawn = false;
  // The totals when the pass began: a `--follow` pass's log line counts its own pages and events, not the command's.
  let passStart = { pages: 0, events: 0, written: 0, duplicates: 0 };
  return {
    update(progress) {
      // A pass an error ended is told by the error that follows, not as a pass done or as up to date.
      if (progress.phase === 'stopped') return;
      const now = performance.now();
      if (tty) {
        if (now - last < REDRAW_MS && progress.phase !== 'idle') return;
        last = now;
        drawn = true;
        io.stderr.write(`\r\x1b[K${progressLine(progress)}`);
        return;
      }
      if (now - last < LOG_EVERY_MS && progress.phase !== 'idle') return;
      last = now;
      const { eventsPerSecond, openEvents } = progress;
      const pages = progress.pages - passStart.pages;
      const events = progress.events - passStart.events;
      const written = progress.written - passStart.written;
      const duplicates = progress.duplicates - passStart.duplicates;
      log.info({ pages, events, written, duplicates, eventsPerSecond, openEvents, reached: reachedText(progress) }, progress.phase === 'idle' ? 'events pull pass done' : 'events pull progress');
      if (progress.phase === 'idle') passStart = { pages: progress.pages, events: progress.events, written: progress.written, duplicates: progress.duplicates };
    },
    stop() {
      if (drawn) io.stderr.write('\n');
    },
  };
}

function progressLine(progress: PullProgress): string {
  const counts = `${progress.pages} pages, ${progress.events} events (${progress.written} new), ${progress.eventsPerSecond} events/s`;
  return progress.phase === 'idle' ? `up to date: ${counts}, archived up to ${reachedText(progress)}` : `pulling: ${counts}, back to ${reachedText(progress)}`;
}

/** How far back the run in progress has got (its position), else the end of the last completed run. */
function reachedText(progress: PullProgress): string {
  const at = progress.run?.position ?? progress.watermark;
  return at === null ? '—' : new Date(at).toISOString().slice(0, 16).replace('T', ' ');
}

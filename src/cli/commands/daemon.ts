import { stat } from 'node:fs/promises';
import { runDaemon } from '../../daemon/daemon.js';
import type { DaemonEnvironment, DaemonOptions, DaemonReady } from '../../daemon/daemon-options.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { prettyLogStream } from '../../lib/pretty-log.js';
import { booleanFlag, defineCommand, listFlag, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { archiveFlag, concurrencyFlag, dataFlag, dirFlag, pruneFlags, sinceFlag } from '../common-flags.js';
import { archiveDirOf, dataDirOf } from '../data-dir-default.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { durationFlag, intFlag, lookbackFlag } from '../int-flag.js';
import { concurrencyOf } from '../plan-from-flags.js';
import { parseTargetUrl, platformFromEnv, retryFromEnv } from '../target.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { formatDiagnostic } from '../../desired/diagnostic.js';
import { allEnvsFlag, envFlag, environmentMode } from '../environment-choice.js';
import { environmentPlatform, environmentPlatformMissing, environmentToken } from '../environment-targets.js';
import { repoFlags, repoOptions } from '../repo-flags.js';
import { SourceError } from '../../source/source-error.js';
import { listenFailure, refuseZonedHost } from '../listen-failure.js';
import { untilSettled } from '../local-store.js';
import { ownershipTagProblem } from '../../daemon/repository-limits.js';

export const daemonCommand = defineCommand({
  path: ['daemon'],
  summary: 'Keep the live dashboards equal to the folder and the events archive current',
  description:
    'A full reconcile at start, then: saved files are re-applied within a short debounce, every --resync a full plan\n' +
    'finds drift (live edits of unchanged files) and reverts it, and the events poller archives the feed. Without a\n' +
    'target it serves the embedded API on --listen and reconciles into it. Status: GET /healthz, /status, /metrics on\n' +
    '--listen. Logs are JSON lines on stdout (readable lines on a terminal). SIGINT/SIGTERM stop it cleanly.\n\n' +
    'With --repo it follows a git repository instead of --dir: it fetches every --fetch (and at once on POST /hooks/git),\n' +
    'reconciles exactly the fetched commit from a clean checkout, and reports the live revision in /status.\n' +
    'Credentials from DASHCD_GIT_TOKEN (HTTPS) or DASHCD_GIT_SSH_KEY; webhooks need DASHCD_WEBHOOK_SECRET.\n\n' +
    'When dashcd.yaml declares environments it reconciles every one (or those chosen with --env) from this process,\n' +
    'each into its own target with its own queue, resync timer and events archive folder <archive>/<env>/.',
  flags: {
    dir: dirFlag,
    target: { type: 'string', description: 'Environment URL (else DT_ENV_URL; else the embedded API on --listen)', valueName: 'url' },
    archive: { ...archiveFlag, description: 'Events archive folder (default: events-archive in the project root, beside dashboards/ or dashcd.yaml)' },
    data: dataFlag,
    resync: { type: 'string', description: 'Full plan (drift check) interval, at least 1s', default: '60s', valueName: 'duration' },
    poll: { type: 'string', description: 'Events poll interval, at least 100ms', default: '60s', valueName: 'duration' },
    since: sinceFlag,
    listen: { type: 'string', description: 'Address for the embedded API and the status endpoints', default: '127.0.0.1:8080', valueName: 'host:port' },
    'self-heal': { type: 'boolean', description: 'Revert drift found at resync (--no-self-heal only reports it)', default: true },
    ...pruneFlags,
    'max-delete': {
      ...pruneFlags['max-delete'],
      description: "Most dashboards pruning may delete in one pass (default: maxDelete in dashcd.yaml, else 5); with --repo, a ceiling: a commit's maxDelete above it is refused, and one that sets none gets the default only up to it",
    },
    concurrency: concurrencyFlag,
    'simulate-events': { type: 'boolean', description: 'Embedded API only: generate a synthetic event stream' },
    env: envFlag,
    'all-envs': allEnvsFlag,
    ...repoFlags,
  },
  examples: [
    'dashcd daemon --simulate-events',
    'dashcd daemon --env dev --env staging',
    'DT_ENV_URL=https://abc123.live.dynatrace.com DT_API_TOKEN=… dashcd daemon --listen 0.0.0.0:9464 --resync 5m',
    'DASHCD_GIT_TOKEN=… DASHCD_WEBHOOK_SECRET=… dashcd daemon --repo https://github.com/acme/dashboards.git --branch main --fetch 60s',
  ],
  async run({ flags }, io) {
    const dir = await watchedRoot(flags, io);
    const options = { ...daemonOptions(flags, io), dataDir: await dataDirOf(stringFlag(flags, 'data'), io.cwd), archiveDir: await archiveDirOf(stringFlag(flags, 'archive'), io.cwd, 'pull'), dir, environments: await daemonEnvironments(dir, flags, io) };
    if (options.target && options.simulateEvents) throw new UsageError('--simulate-events needs the embedded API (no --target)');
    // After the flags' own errors, as validate and plan: a misspelt --dir made a daemon that served, said ok on
    // /healthz, and reconciled nothing.
    if (!options.repo && !(await stat(dir).then((info) => info.isDirectory(), () => false))) {
      throw new CliError(`dashboards folder not found: ${dir} (give --dir the folder of the dashboard files)`, ExitCode.InvalidDesiredState);
    }
    const log = daemonLogger(io);
    // As serve: another command's moment with the data dir (a token create, a plan's own server) is waited for; a
    // serve or daemon up on it is refused when the daemon takes it.
    // Only when it will take the data dir: a daemon whose targets are all remote never does.
    if (usesDataDir(options)) await untilSettled(options.dataDir, { log, signal: io.signal }, async (owner) => (owner === undefined || (owner.url !== '' && owner.lasting) ? true : undefined));
    try {
      await runDaemon({ ...options, log, signal: io.signal, onReady: (ready) => announce(ready, options.dataDir, io, log) });
    } catch (error) {
      throw startFailure(error, stringFlag(flags, 'listen') ?? '127.0.0.1:8080', io.env);
    }
    return ExitCode.Success;
  },
});

/** As runDaemon decides: an embedded environment, or none declared and no --target; a followed repository's state. */
function usesDataDir(options: Pick<DaemonOptions, 'repo' | 'target' | 'environments'>): boolean {
  if (options.repo) return true;
  return options.environments ? options.environments.some((e) => e.target.kind === 'embedded') : !options.target;
}

/** The dashboards folder to watch. Following a repository there is none here: each checkout brings its own. */
async function watchedRoot(flags: FlagValues, io: CommandIo): Promise<string> {
  if (stringFlag(flags, 'repo') !== undefined) return '.';
  const { root, only } = await selectionFromArgs(flags, [], io);
  // A daemon watching part of a root would see its siblings' dashboards as orphans: it always reconciles a root.
  if (only) throw new UsageError(`--dir ${stringFlag(flags, 'dir') ?? ''} is a subfolder of the dashboards folder ${root}; the daemon reconciles a whole dashboards folder`);
  return root;
}

/**
 * The environments of dashcd.yaml to reconcile, each with its target (a remote one's token from its own variable,
 * checked now: a missing token is a start failure, not a loop failing forever). Undefined: none declared.
 */
async function daemonEnvironments(root: string, flags: FlagValues, io: CommandIo): Promise<DaemonEnvironment[] | undefined> {
  if (stringFlag(flags, 'repo') !== undefined) {
    if (listFlag(flags, 'env').length > 0 || booleanFlag(flags, 'all-envs')) throw new UsageError('--env and --all-envs read dashcd.yaml from --dir; following a repository, its commit declares the environments');
    return undefined;
  }
  const mode = await environmentMode(root, flags, io);
  if (mode.kind === 'single') return undefined;
  if (mode.kind === 'invalid') throw new CliError(`dashcd.yaml is invalid:\n${mode.diagnostics.map(formatDiagnostic).join('\n')}`, ExitCode.InvalidDesiredState);
  return mode.selected.map((environment) => ({
    environment,
    target: environment.target.kind === 'remote' ? { kind: 'remote', baseUrl: environment.target.url, token: environmentToken(environment, environment.target, io, DAEMON_SCOPES), platform: environmentPlatform(environment, io), noPlatform: environmentPlatformMissing(environment, io) } : { kind: 'embedded' },
  }));
}

function daemonOptions(flags: FlagValues, io: CommandIo): Omit<DaemonOptions, 'log' | 'signal' | 'dir' | 'dataDir' | 'archiveDir'> {
  return {
    cwd: io.cwd,
    target: remoteTarget(flags, io),
    listen: parseListen(stringFlag(flags, 'listen') ?? '127.0.0.1:8080'),
    resyncMs: durationFlag(flags, 'resync', 60_000, { minMs: 1000 }),
    pollMs: durationFlag(flags, 'poll', 60_000, { minMs: 100 }),
    since: lookbackFlag(flags, 'since', Date.now(), String(sinceFlag.default)),
    selfHeal: flags['self-heal'] !== false,
    prune: typeof flags.prune === 'boolean' ? flags.prune : undefined,
    maxDelete: flags['max-delete'] === undefined ? undefined : intFlag(flags, 'max-delete', 0),
    concurrency: concurrencyOf(flags),
    simulateEvents: booleanFlag(flags, 'simulate-events'),
    retry: retryFromEnv(io.env),
    ...passChunkFromEnv(io.env),
    tokenFor: (environment) => (environment.target.kind === 'remote' ? environmentToken(environment, environment.target, io, DAEMON_SCOPES) : ''),
    platformFor: (environment) => environmentPlatform(environment, io),
    noPlatformFor: (environment) => environmentPlatformMissing(environment, io),
    ...withRepo(flags, io),
  };
}

/** DASHCD_PASS_CHUNK_FILES: a smaller chunk holds less memory in a large full pass; a larger one plans in fewer steps. */
function passChunkFromEnv(env: CommandIo['env']): Pick<DaemonOptions, 'passChunkFiles'> {
  const raw = env.DASHCD_PASS_CHUNK_FILES;
  if (raw === undefined || raw === '') return {};
  if (!/^[1-9]\d{0,6}$/.test(raw)) throw new UsageError(`DASHCD_PASS_CHUNK_FILES must be a whole number of files from 1 to 9999999, got '${raw}'`);
  return { passChunkFiles: Number(raw) };
}

function withRepo(flags: FlagValues, io: CommandIo): Pick<DaemonOptions, 'repo' | 'ownershipTag'> {
  const repo = repoOptions(flags, io);
  const tag = stringFlag(flags, 'ownership-tag');
  if (tag === undefined) return repo ? { repo } : {};
  const problem = ownershipTagProblem(tag);
  if (problem !== undefined) throw new UsageError(problem);
  return { ...(repo ? { repo } : {}), ownershipTag: tag };
}

/** What stops the daemon from starting is the user's to fix (a port in use; a data dir in use is run.ts's): a message, not a stack. */
function startFailure(error: unknown, listen: string, env: NodeJS.ProcessEnv): unknown {
  if (error instanceof SourceError) return new CliError(`cannot follow the repository: ${error.message}`, ExitCode.Usage, { cause: error });
  const why = listenFailure(error);
  // Started by `npm start`, a flag goes after `--`, which a newcomer has no reason to know.
  const how = env.npm_lifecycle_event === 'start' ? ' (npm start -- --listen 127.0.0.1:8081)' : '';
  if (why) return new CliError(`cannot listen on ${listen} (${why}) — choose another --listen${how}`, ExitCode.Unexpected, { cause: error });
  return error;
}

/** What the daemon's requests need: reading and writing dashboards, and the events poller's reads of the feed. */
const DAEMON_SCOPES = ['ReadConfig', 'WriteConfig', 'DataExport'];

/**
 * `--target`, else `DT_ENV_URL` (alias `DYNATRACE_ENV_URL`); undefined: the embedded API. Its `origin` names the flag
 * or variables the URL and token came from, as apply's failures do.
 */
function remoteTarget(flags: FlagValues, io: CommandIo): DaemonOptions['target'] {
  const sources: [string, string | undefined][] = [['--target', stringFlag(flags, 'target')], ['DT_ENV_URL', io.env.DT_ENV_URL], ['DYNATRACE_ENV_URL', io.env.DYNATRACE_ENV_URL]];
  const [urlFrom = '', url] = sources.find(([, value]) => value !== undefined) ?? [];
  if (!url) return undefined;
  const baseUrl = parseTargetUrl(url);
  const tokenFrom = io.env.DT_API_TOKEN !== undefined ? 'DT_API_TOKEN' : 'DYNATRACE_API_TOKEN';
  const token = io.env[tokenFrom];
  if (!token) throw new CliError(`no API token for ${baseUrl}: set DT_API_TOKEN (scopes ${DAEMON_SCOPES.join(', ')})`, ExitCode.TargetUnavailable);
  return { baseUrl, token, platform: platformFromEnv(io.env, baseUrl), origin: { url: urlFrom, token: tokenFrom } };
}

/** The daemon logs to stdout (it is its output): JSON lines, or readable lines when a person is watching. */
function daemonLogger(io: CommandIo): Logger {
  const level = io.env.DASHCD_LOG_LEVEL ?? 'info';
  const pretty = io.stdout.isTTY === true && io.env.DASHCD_LOG_FORMAT !== 'json';
  return createLogger({ level, destination: pretty ? prettyLogStream(io.stdout, { color: io.env.NO_COLOR === undefined }) : io.stdout });
}

/**
 * A person at a terminal gets the banner with a ready-to-paste curl; its token is live until the daemon stops, so
 * it never goes to a non-terminal stdout (journald, a container log), where it would outlive its purpose. There the
 * embedded API's line says where it is and how to make a lasting token (the daemon's own `daemon ready` line has the
 * console, status and metrics addresses).
 */
function announce(ready: DaemonReady, dataDir: string, io: CommandIo, log: Logger): void {
  const dashcd = dashcdCommand(io.env);
  if (io.stdout.isTTY) io.stdout.write(readyBanner(ready, dashcd));
  else if (ready.api) {
    const addresses = { console: `${ready.statusUrl}/ui`, status: `${ready.statusUrl}/status`, metrics: `${ready.statusUrl}/metrics` };
    log.info({ api: ready.api.envUrl, ...addresses, createToken: `${dashcd} token create --data ${dataDir}${envArg(ready.api.envUrl)} --scopes ReadConfig,WriteConfig` }, 'embedded API ready');
  }
}

/**
 * How to run dashcd again from where this one was started: under `npm start` in a checkout, `dashcd` is on no PATH
 * (npm link comes later), so the advice says `npx dashcd`, which finds the checkout's own.
 */
export function dashcdCommand(env: CommandIo['env']): string {
  return env.npm_lifecycle_event === 'start' ? 'npx dashcd' : 'dashcd';
}

export function parseListen(text: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || !match[1] || port > 65_535) throw new UsageError(`--listen must be host:port, e.g. 127.0.0.1:8080, got '${text}'`);
  const host = match[1].replace(/^\[(.*)\]$/, '$1');
  refuseZonedHost(host, '--listen');
  return { host, port };
}

/** ` --env NAME` for the API's `/e/NAME`: a token of another environment (`local`, the default) gets 401 there. */
function envArg(envUrl: string): string {
  const env = /\/e\/([^/]+)$/.exec(envUrl)?.[1];
  return env === undefined ? '' : ` --env ${env}`;
}

export function readyBanner(ready: DaemonReady, dashcd = 'dashcd'): string {
  const lines = ['', `dashcd daemon is running — reconciling into ${ready.target}`];
  if (ready.api) {
    lines.push(
      `  API:      ${ready.api.envUrl}/api/config/v1/dashboards`,
      `  Try it:   curl -s -H "Authorization: Api-Token ${ready.api.token}" ${ready.api.envUrl}/api/config/v1/dashboards`,
      `            (a token for this run only; make lasting ones with: ${dashcd} token create${envArg(ready.api.envUrl)} --scopes ReadConfig)`,
    );
  }
  lines.push(
    `  Console:  ${ready.statusUrl}/ui   (read-only: each environment's dashboards, their sync state, drift and events)`,
    `  Status:   ${ready.statusUrl}/status   Health: ${ready.statusUrl}/healthz   Metrics: ${ready.statusUrl}/metrics`,
    '  Stop:     Ctrl-C',
    '',
  );
  return `${lines.join('\n')}\n`;
}

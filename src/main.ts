#!/usr/bin/env node
import { followLauncher, launchesServer, processRelauncher } from './cli/relaunch.js';
import { serverNodeOptions } from './server/server-node-options.js';

const controller = new AbortController();
let stopping = false;
const stopCleanly = (reason: string): void => {
  stopping = true;
  if (!controller.signal.aborted) controller.abort(new Error(reason));
};
const launched = followLauncher(process, () => stopCleanly('asked to stop by the process that launched it'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First signal asks every loop to stop cleanly; a second one means "now". A launched child leaves "now" to its
    // launcher (which exits, and the child with it): a supervisor signalling both processes is one stop, not two.
    if (stopping && !launched) process.exit(130);
    stopCleanly(`received ${signal}`);
  });
}

const argv = process.argv.slice(2);
// A server relaunches itself with its Node options (relaunch.ts) before the CLI, its logger or any command loads: the
// launcher only starts its child and waits, so a user's `dashcd serve` pays one Node start more and nothing else.
const relaunched = launched || !launchesServer(argv)
  ? undefined
  : processRelauncher({ execPath: process.execPath, execArgv: process.execArgv, argv: process.argv.slice(1), env: process.env, signal: controller.signal })(serverNodeOptions());
process.exitCode = await (relaunched ?? runCommand());

async function runCommand(): Promise<number> {
  // A closed pipe on stdout is the reader's choice, not a crash (see runCli).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  // Logs go to stderr (stdout carries plans, tables and JSONL), as readable lines: a CI log is read by a person as
  // much as a terminal is (JSON lines there sat between a plan's readable ones). A server not at a terminal writes
  // JSON lines for its log collector, as the daemon does on stdout; DASHCD_LOG_FORMAT=json asks for them anywhere.
  const readable = process.env.DASHCD_LOG_FORMAT !== 'json' && (process.stderr.isTTY === true || argv[0] !== 'serve');
  const [{ commandsFor }, { runCli }, { createLogger }, pretty] = await Promise.all([
    import('./cli/command-loader.js'),
    import('./cli/run.js'),
    import('./lib/logger.js'),
    readable ? import('./lib/pretty-log.js') : undefined,
  ]);
  const log = createLogger({
    level: process.env.DASHCD_LOG_LEVEL ?? 'info',
    ...(pretty ? { destination: pretty.prettyLogStream(process.stderr) } : {}),
  });
  return runCli(await commandsFor(argv), argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), log, signal: controller.signal });
}

#!/usr/bin/env node
import { commandsFor } from './cli/command-loader.js';
import { runCli } from './cli/run.js';
import { createLogger } from './lib/logger.js';
import { followLauncher, processRelauncher } from './cli/relaunch.js';
import { prettyLogStream } from './lib/pretty-log.js';

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

// Logs go to stderr (stdout carries plans, tables and JSONL); readable lines when a person is watching.
// A closed pipe on stdout is the reader's choice, not a crash (see runCli).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const log = createLogger({
  level: process.env.DASHCD_LOG_LEVEL ?? 'info',
  ...(process.stderr.isTTY ? { destination: prettyLogStream(process.stderr) } : {}),
});
const argv = process.argv.slice(2);
const code = await runCli(await commandsFor(argv), argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  log,
  signal: controller.signal,
  // A launched child never launches again.
  ...(!launched && { relaunch: processRelauncher({ execPath: process.execPath, execArgv: process.execArgv, argv: process.argv.slice(1), env: process.env, signal: controller.signal }) }),
});
process.exitCode = code;

#!/usr/bin/env node
import { commandsFor } from './cli/command-loader.js';
import { runCli } from './cli/run.js';
import { createLogger } from './lib/logger.js';
import { prettyLogStream } from './lib/pretty-log.js';
import { followLauncher, processRelauncher } from './cli/relaunch.js';

followLauncher(process);

const controller = new AbortController();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First signal asks every loop to stop cleanly; a second one means "now".
    if (stopping) process.exit(130);
    stopping = true;
    controller.abort(new Error(`received ${signal}`));
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
  relaunch: processRelauncher({ execPath: process.execPath, execArgv: process.execArgv, argv: process.argv.slice(1), env: process.env, signal: controller.signal }),
});
process.exitCode = code;

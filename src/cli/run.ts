import type { Command, CommandIo } from './command.js';
import { CliError, ExitCode } from './exit-codes.js';
import { commandHelp, groupHelp, groupMembers, overviewHelp } from './help.js';
import { asksForHelp, closest, parseArgs } from './parse-args.js';
import { dashcdVersion } from './version.js';
import { errorMessage } from '../lib/error-message.js';
import { fileSystemFailure } from '../lib/file-system-failure.js';
import { exhaustionOf, type Exhaustion } from '../lib/fs-errors.js';
import { printable, printableLines } from '../lib/printable.js';
import { DataDirLockedError } from '../server/data-dir-locked.js';

/**
 * Selects the command from the leading words, parses its flags and runs it. The one place where errors become exit
 * codes: CliError carries its own, a file-system call the machine refused is named by its path (1), anything else is
 * unexpected (1) and is logged with its stack.
 */
export async function runCli(commands: readonly Command[], argv: readonly string[], io: CommandIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || (argv[0] === 'help' && argv.length === 1)) {
    io.stdout.write(overviewHelp(commands));
    return argv.length === 0 ? ExitCode.Usage : ExitCode.Success;
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout.write(`dashcd ${dashcdVersion()}\n`);
    return ExitCode.Success;
  }
  // `dashcd help token list` is `dashcd token list --help`.
  if (argv[0] === 'help') return runCli(commands, [...argv.slice(1), '--help'], io);
  const match = selectCommand(commands, argv);
  if (!match) return noCommand(commands, argv, io);
  const { command, rest } = match;
  if (asksForHelp(command.flags, rest)) {
    io.stdout.write(commandHelp(command));
    return ExitCode.Success;
  }
  try {
    const args = parseArgs(command, rest);
    const quiet = command.quietLogs === true && io.env.DASHCD_LOG_LEVEL === undefined;
    return await command.run(args, quiet ? { ...io, log: io.log.child({}, { level: 'warn' }) } : io);
  } catch (error) {
    // The reader went away (`dashcd events query | head`): like any Unix filter, stop quietly.
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') return ExitCode.Success;
    // Asked to stop (Ctrl-C): whatever the stop cut short is not a failure to report, nor a bug; a CliError then says
    // what the stop left (events pull: where it resumes).
    if (io.signal.aborted) {
      const left = error instanceof CliError ? `; ${shownMessage(error)}` : '';
      io.stderr.write(`dashcd ${command.path.join(' ')}: interrupted (${shownMessage(io.signal.reason)})${left}\n`);
      return ExitCode.Interrupted;
    }
    if (error instanceof CliError) {
      io.stderr.write(`dashcd ${command.path.join(' ')}: ${shownMessage(error)}\n`);
      return error.exitCode;
    }
    // Another dashcd holds the data dir, and the command cannot go through it: exit 4, as a target it cannot reach.
    if (error instanceof DataDirLockedError) {
      io.stderr.write(`dashcd ${command.path.join(' ')}: ${printable(error.message)}\n`);
      return ExitCode.TargetUnavailable;
    }
    const refused = fileSystemFailure(error) ?? ranOut(exhaustionOf(error));
    if (refused !== undefined) {
      io.log.debug({ err: error, command: command.path.join(' ') }, 'file-system call refused');
      io.stderr.write(`dashcd ${command.path.join(' ')}: ${printable(refused)}\n`);
      return ExitCode.Unexpected;
    }
    io.log.error({ err: error, command: command.path.join(' ') }, 'unexpected error');
    io.stderr.write(`dashcd ${command.path.join(' ')}: unexpected error: ${shownMessage(error)}\n`);
    return ExitCode.Unexpected;
  }
}

/**
 * An error's message as the terminal and a CI log get it (lib/printable.ts): no control character passes. A CliError
 * of its own is dashcd's text and keeps the lines dashcd laid it out in (a list under a message); one that wraps a
 * cause, and any other error, quotes something thrown elsewhere (a target's answer, a feed's page, git's words),
 * which is one line by design: a line break there is not dashcd's, and could start a line a CI runner takes as a
 * workflow command, so it is kept to one line.
 */
function shownMessage(error: unknown): string {
  const message = errorMessage(error);
  return error instanceof CliError && error.cause === undefined ? printableLines(message) : printable(message);
}

/** What `dashcd` takes without a command (runCli above). */
const TOP_LEVEL_FLAGS = ['--help', '--version'];

function selectCommand(commands: readonly Command[], argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of commands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : undefined;
}

/**
 * argv names no command. A group's name (`dashcd token`) prints the group's subcommands: on stdout with exit 0
 * when help was asked for, else on stderr with the usage exit code, as git and kubectl do. Anything else is unknown.
 */
function noCommand(commands: readonly Command[], argv: readonly string[], io: CommandIo): number {
  const [first = '', second] = argv;
  const members = groupMembers(commands, first);
  if (members.length > 0 && asksForHelp({}, argv)) {
    io.stdout.write(groupHelp(first, members));
    return ExitCode.Success;
  }
  if (members.length > 0 && (second === undefined || second.startsWith('-'))) {
    const problem = second === undefined ? `which ${first} command?` : `${second} needs a ${first} command before it`;
    io.stderr.write(`dashcd ${first}: ${problem}\n\n${groupHelp(first, members)}`);
    return ExitCode.Usage;
  }
  // A misspelt top-level flag (`--versoin`) is matched against the flags dashcd takes before any command.
  const words = first.startsWith('-') ? TOP_LEVEL_FLAGS : commands.map((c) => c.path.join(' '));
  const hint = closest(argv.slice(0, 2).join(' '), words) ?? closest(first, words);
  const named = members.length > 0 ? `${first} ${second ?? ''}` : first;
  const list = members.length > 0 ? `dashcd ${first} --help` : 'dashcd --help';
  if (TOP_LEVEL_FLAGS.includes(first)) {
    io.stderr.write(`dashcd: ${first} takes no arguments (got '${argv.slice(1).join(' ')}')\n`);
    return ExitCode.Usage;
  }
  const what = first.startsWith('-') ? 'flag' : 'command';
  io.stderr.write(`dashcd: unknown ${what} '${named}'${hint ? ` — did you mean '${hint}'?` : ''}\nRun '${list}' for the list.\n`);
  return ExitCode.Usage;
}

/** A resource of the machine that ran out (a full disk at start-up, say): the machine's state, not a bug. */
function ranOut(exhaustion: Exhaustion | undefined): string | undefined {
  return exhaustion && `the machine ran out of ${exhaustion.resource} (${exhaustion.code}): free some and run it again`;
}

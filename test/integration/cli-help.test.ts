import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/run.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { silentLogger } from '../../src/lib/logger.js';
import { unwrapHelp } from '../helpers/help-text.js';

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(commands, argv, {
    stdout,
    stderr,
    env: {},
    cwd: process.cwd(),
    log: silentLogger(),
    signal: new AbortController().signal,
  });
  return { code, stdout: out, stderr: err };
}

describe('the command layer', () => {
  it.each(commands.map((c) => [c.path.join(' ')]))('"dashcd %s --help" prints usage, flags and examples and exits 0', async (path) => {
    const result = await run([...path.split(' '), '--help']);
    expect(result.code).toBe(ExitCode.Success);
    expect(result.stdout).toContain(`Usage: dashcd ${path}`);
    expect(result.stdout).toContain('Flags:');
    expect(result.stdout).toContain('Examples:');
  });

  it('lists every command in the overview', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(ExitCode.Success);
    for (const command of commands) expect(result.stdout).toContain(command.path.join(' '));
    expect(result.stdout).toMatch(/Exit codes: 0 ok/);
  });

  it('"dashcd --version" and "-V" print the version of package.json and exit 0', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await run([flag]);
      expect(result.code).toBe(ExitCode.Success);
      expect(result.stdout).toBe(`dashcd ${version}\n`);
    }
    expect((await run(['--help'])).stdout).toContain("'dashcd --version'");
  });

  it('answers an unknown command with a hint and the usage exit code', async () => {
    const result = await run(['plna']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain("unknown command 'plna' — did you mean 'plan'?");
  });

  it('refuses --concurrency 0 before doing any work: there is no such thing as no requests at a time', async () => {
    for (const command of ['apply', 'daemon', 'plan']) {
      for (const value of ['0', 'abc']) {
        const result = await run([command, '--concurrency', value, '--dir', 'no-such-folder']);
        expect(result.code, command).toBe(ExitCode.Usage);
        // One message for both: a word and a zero are wrong alike.
        expect(result.stderr).toContain(`--concurrency must be an integer of at least 1, got '${value}'`);
      }
    }
  });

  it('refuses an interval below its least (--resync 0s, --poll 50ms, --fetch 500ms) instead of raising it unasked', async () => {
    for (const [args, message] of [
      [['--resync', '0s', '--dir', 'no-such-folder'], "--resync must be at least 1s, got '0s'"],
      [['--resync', '500ms', '--dir', 'no-such-folder'], "--resync must be at least 1s, got '500ms'"],
      [['--poll', '50ms', '--dir', 'no-such-folder'], "--poll must be at least 100ms, got '50ms'"],
      [['--repo', 'https://example.com/x.git', '--fetch', '500ms'], "--fetch must be at least 1s, got '500ms'"],
    ] as const) {
      const result = await run(['daemon', ...args]);
      expect([result.code, result.stderr], args.join(' ')).toEqual([ExitCode.Usage, expect.stringContaining(message)]);
    }
  });

  it('answers a misspelt flag given without a command with a hint among the flags dashcd takes alone', async () => {
    for (const [given, meant] of [['--versoin', '--version'], ['--hepl', '--help']] as const) {
      const result = await run([given]);
      expect(result.code).toBe(ExitCode.Usage);
      expect(result.stderr).toContain(`unknown flag '${given}' — did you mean '${meant}'?`);
    }
    const extra = await run(['--version', 'now']);
    expect(extra.code).toBe(ExitCode.Usage);
    expect(extra.stderr).toBe("dashcd: --version takes no arguments (got 'now')\n");
  });

  it('answers an unknown flag with a hint and the usage exit code, before doing any work', async () => {
    const result = await run(['validate', '--dri', 'x']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain('unknown flag --dri — did you mean --dir?');
  });

  it.each([['token', ['token create', 'token list', 'token revoke']], ['events', ['events pull', 'events query', 'events stats', 'events import']]])(
    '"dashcd %s --help" lists the group\'s subcommands with their summaries and exits 0',
    async (group, members) => {
      for (const argv of [[group, '--help'], [group, '-h'], ['help', group]]) {
        const result = await run(argv);
        expect(result.code, argv.join(' ')).toBe(ExitCode.Success);
        expect(result.stdout).toContain(`Usage: dashcd ${group} <command>`);
        for (const path of members) {
          const command = commands.find((c) => c.path.join(' ') === path);
          expect(unwrapHelp(result.stdout)).toMatch(new RegExp(`^  ${path} +${command?.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
        }
        expect(result.stderr).toBe('');
      }
    },
  );

  it('a bare group ("dashcd token") prints the group help to stderr and exits with the usage code', async () => {
    const result = await run(['token']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: dashcd token <command>');
    expect(result.stderr).toMatch(/^ {2}token list +List the API tokens/m);
    expect(result.stderr).not.toContain('unknown command');
  });

  it('a flag right after a group ("dashcd token --data x") asks for the subcommand instead of calling the flag a command', async () => {
    const result = await run(['token', '--data', 'x']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain('dashcd token: --data needs a token command before it');
    expect(result.stderr).toContain('Usage: dashcd token <command>');
    expect(result.stderr).not.toContain('unknown command');
  });

  it('an unknown subcommand of a group names the group\'s help and hints at the closest subcommand', async () => {
    const result = await run(['token', 'lst']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain("unknown command 'token lst' — did you mean 'token list'?");
    expect(result.stderr).toContain("Run 'dashcd token --help' for the list.");
  });

  it('"dashcd help <command>" prints that command\'s help; "dashcd help <unknown>" is a usage error', async () => {
    const plan = await run(['help', 'plan']);
    expect(plan.code).toBe(ExitCode.Success);
    expect(plan.stdout).toContain('Usage: dashcd plan');
    const tokenList = await run(['help', 'token', 'list']);
    expect(tokenList.stdout).toContain('Usage: dashcd token list');
    const unknown = await run(['help', 'nope']);
    expect(unknown.code).toBe(ExitCode.Usage);
    expect(unknown.stderr).toContain("unknown command 'nope'");
  });

  it('has no two commands with the same path', () => {
    const paths = commands.map((c) => c.path.join(' '));
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe('the lazy command loader', () => {
  it('knows exactly the commands of the table, in the same order, and loads each one by its path', async () => {
    const { LAZY_COMMANDS, commandsFor } = await import('../../src/cli/command-loader.js');
    expect(LAZY_COMMANDS.map((c) => c.path.join(' '))).toEqual(commands.map((c) => c.path.join(' ')));
    for (const entry of LAZY_COMMANDS) {
      const loaded = await commandsFor([...entry.path, '--help']);
      expect(loaded.map((c) => c.path.join(' '))).toEqual([entry.path.join(' ')]);
    }
    expect(await commandsFor(['no-such-command'])).toEqual(commands);
    expect(await commandsFor([])).toEqual(commands);
    // A group's name alone selects no command: the whole table, so the group help can list its subcommands.
    expect(await commandsFor(['events', '--help'])).toEqual(commands);
    expect(await commandsFor(['--version'])).toEqual([]);
    expect(await commandsFor(['-V'])).toEqual([]);
  });
});

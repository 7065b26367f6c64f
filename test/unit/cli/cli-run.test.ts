import { describe, expect, it } from 'vitest';
import { defineCommand } from '../../../src/cli/command.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { runDashcd } from '../../helpers/cli.js';

/** A command that prints what it was given: whether runCli ran it or printed its help shows on stdout. */
const echo = defineCommand({
  path: ['echo'],
  summary: 'prints its arguments',
  flags: {
    'data-dir': { type: 'string', description: 'folder' },
    verbose: { type: 'boolean', description: 'more' },
  },
  positionals: [{ name: 'word', description: 'words', variadic: true }],
  examples: [],
  run: async (args, io) => {
    io.stdout.write(JSON.stringify(args));
    return ExitCode.Success;
  },
});

const run = (argv: string[]) => runDashcd(argv, { cwd: process.cwd(), commands: [echo] });

describe('runCli (through runDashcd, as main.ts runs it): when a command prints its help instead of running', () => {
  it('prints the help for --help or -h in flag position, with exit 0', async () => {
    for (const argv of [['echo', '--help'], ['echo', '--verbose', '-h'], ['echo', 'a', '--data-dir', 'd', '--help']]) {
      const result = await run(argv);
      expect(result.code).toBe(ExitCode.Success);
      expect(result.stdout).toContain('Usage: dashcd echo');
    }
  });

  it('runs the command when -h is the value of a flag that takes one', async () => {
    const result = await run(['echo', '--data-dir', '-h']);
    expect(result.code).toBe(ExitCode.Success);
    expect(JSON.parse(result.stdout)).toEqual({ flags: { 'data-dir': '-h' }, positionals: [] });
  });

  it('runs the command when --help or -h comes after --, as positionals', async () => {
    const result = await run(['echo', '--verbose', '--', '--help', '-h']);
    expect(result.code).toBe(ExitCode.Success);
    expect(JSON.parse(result.stdout)).toEqual({ flags: { verbose: true }, positionals: ['--help', '-h'] });
  });
});

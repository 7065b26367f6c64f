import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/run.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { silentLogger } from '../../src/lib/logger.js';

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

  it('answers an unknown command with a hint and the usage exit code', async () => {
    const result = await run(['plna']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain("unknown command 'plna' — did you mean 'plan'?");
  });

  it('answers an unknown flag with a hint and the usage exit code, before doing any work', async () => {
    const result = await run(['validate', '--dri', 'x']);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toContain('unknown flag --dri — did you mean --dir?');
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
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runDashcd } from '../helpers/cli.js';
import { unwrapHelp } from '../helpers/help-text.js';

/** Every help dashcd prints: the overview, each group's and each command's. */
const HELP_ARGV = [[], ['token'], ['events'], ...commands.map((c) => [...c.path])].map((path) => [...path, '--help']);

let cwd: string;
const helps = new Map<string, string>();
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-help-width-'));
  for (const argv of HELP_ARGV) helps.set(argv.join(' '), (await runDashcd(argv, { cwd })).stdout);
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** The lines of a help before its examples, which are shown whole however long: they are copied and run. */
const proseLines = (help: string): string[] => help.slice(0, help.search(/^Examples:$/m) >>> 0).split('\n');

describe('--help text', () => {
  it('wraps to at most 100 columns everywhere but the examples', () => {
    const long = [...helps].flatMap(([argv, help]) => proseLines(help).filter((line) => line.length > 100).map((line) => `${argv}: ${line}`));
    expect(long).toEqual([]);
    // The one example over the width (serve's curl) is still on one line.
    expect(helps.get('serve --help')).toMatch(/^ {2}curl -H "Authorization: Api-Token \$DT_API_TOKEN" http:\/\/\S+$/m);
  });

  it('loses no word and breaks none: unwrapped, each description, flag and example reads as declared', () => {
    for (const command of commands) {
      const help = helps.get(`${command.path.join(' ')} --help`) ?? '';
      const flat = unwrapHelp(help).replace(/\s+/g, ' ');
      for (const text of [command.summary, command.description ?? '', ...Object.values(command.flags).map((f) => f.description)]) {
        expect(flat, command.path.join(' ')).toContain(text.replace(/\s+/g, ' '));
      }
      for (const example of command.examples) expect(help.split('\n')).toContain(`  ${example}`);
    }
  });

  it('indents a wrapped flag description under the description column, and never splits a quoted command', () => {
    for (const [argv, help] of helps) {
      const flags = /^Flags:\n([^]*?)\n\n/m.exec(help)?.[1]?.split('\n') ?? [];
      for (const line of flags) expect(line, argv).toMatch(/^(?: {2}--[a-z]| {25}\S)/);
      // A backquoted span cut at a line's end would leave an odd count of backquotes on both lines.
      for (const line of proseLines(help)) expect((line.match(/`/g) ?? []).length % 2, `${argv}: ${line}`).toBe(0);
      expect(help, argv).not.toMatch(/\(default:$/m);
    }
    expect(helps.get('serve --help')).toContain('`node --v8-pool-size=N dist/bundle/main.js serve`');
  });
});

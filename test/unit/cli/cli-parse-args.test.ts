import { describe, expect, it } from 'vitest';
import { defineCommand } from '../../../src/cli/command.js';
import { UsageError } from '../../../src/cli/exit-codes.js';
import { asksForHelp, closest, parseArgs } from '../../../src/cli/parse-args.js';

const command = defineCommand({
  path: ['demo'],
  summary: 'demo',
  flags: {
    dir: { type: 'string', description: 'folder', default: 'dashboards' },
    scopes: { type: 'string', description: 'scopes', multiple: true },
    prune: { type: 'boolean', description: 'prune' },
    'self-heal': { type: 'boolean', description: 'heal', default: true },
  },
  positionals: [{ name: 'id', description: 'ids', variadic: true }],
  examples: [],
  run: async () => 0,
});

describe('parseArgs', () => {
  it('reads --flag value, --flag=value, booleans, defaults and positionals', () => {
    const parsed = parseArgs(command, ['a', '--dir', 'x', '--prune', 'b', '--scopes=A', '--scopes', 'B']);
    expect(parsed.flags).toMatchObject({ dir: 'x', prune: true, scopes: ['A', 'B'], 'self-heal': true });
    expect(parsed.positionals).toEqual(['a', 'b']);
  });

  it('applies defaults when flags are absent and --no-<flag> turns a default-on boolean off', () => {
    expect(parseArgs(command, []).flags.dir).toBe('dashboards');
    expect(parseArgs(command, ['--no-self-heal']).flags['self-heal']).toBe(false);
  });

  it('rejects an unknown flag with a did-you-mean hint', () => {
    expect(() => parseArgs(command, ['--dri', 'x'])).toThrow(UsageError);
    expect(() => parseArgs(command, ['--dri', 'x'])).toThrow(/unknown flag --dri — did you mean --dir\?/);
    expect(() => parseArgs(command, ['--completely-different'])).toThrow(/unknown flag --completely-different \(see/);
    // Names of an object's inherited members are flags like any other: unknown unless the table has them.
    expect(() => parseArgs(command, ['--constructor', 'x'])).toThrow(/unknown flag --constructor/);
    expect(() => parseArgs(command, ['--toString'])).toThrow(/unknown flag --toString/);
    expect(() => parseArgs(command, ['--no-hasOwnProperty'])).toThrow(/unknown flag --no-hasOwnProperty/);
  });

  it('suggests --help, which every command answers though its table does not list it', () => {
    expect(() => parseArgs(command, ['--hlep'])).toThrow(/unknown flag --hlep — did you mean --help\?/);
    expect(() => parseArgs(command, ['--halp'])).toThrow(/unknown flag --halp — did you mean --help\?/);
    // Not for a flag that is merely short: more edits than half its name is another word.
    expect(() => parseArgs(command, ['--env', 'dev'])).toThrow(new UsageError("unknown flag --env (see 'dashcd demo --help')"));
    expect(() => parseArgs(command, ['--di', 'x'])).toThrow(/unknown flag --di — did you mean --dir\?/);
  });

  it('names the flag another command calls the same: --output where the command has --format, and back', () => {
    const withFormat = defineCommand({ ...command, path: ['events', 'query'], flags: { format: { type: 'string', description: 'table or jsonl' } } });
    const withOutput = defineCommand({ ...command, path: ['plan'], flags: { output: { type: 'string', description: 'text or json' } } });
    expect(() => parseArgs(withFormat, ['--output', 'json'])).toThrow(new UsageError("unknown flag --output — did you mean --format? (see 'dashcd events query --help')"));
    expect(() => parseArgs(withOutput, ['--format', 'json'])).toThrow(/unknown flag --format — did you mean --output\?/);
    // Beside a near spelling: preview has --out (a folder) and --format; `--output png` meant the one, `--output
    // shots/` the other (the synonym alone hid --out; the spelling alone, --format).
    const preview = defineCommand({ ...command, path: ['preview'], flags: { out: { type: 'string', description: 'folder' }, format: { type: 'string', description: 'svg or png' } } });
    expect(() => parseArgs(preview, ['--output', 'png'])).toThrow(new UsageError("unknown flag --output — did you mean --format or --out? (see 'dashcd preview --help')"));
    expect(() => parseArgs(preview, ['-output=png'])).toThrow(/: did you mean --format or --out\? \(an argument/);
    // What another tool's flag is here: kubectl's apply --dry-run is plan.
    const apply = defineCommand({ ...command, path: ['apply'], flags: { dir: { type: 'string', description: 'folder' } } });
    expect(() => parseArgs(apply, ['--dry-run'])).toThrow(new UsageError("unknown flag --dry-run — 'dashcd plan' is the dry run: it shows what apply would change and writes nothing (see 'dashcd apply --help')"));
    // Only for apply: pull or plan itself got it too, where it meant nothing.
    const plan = defineCommand({ ...apply, path: ['plan'] });
    expect(() => parseArgs(plan, ['--dry-run'])).toThrow(new UsageError("unknown flag --dry-run (see 'dashcd plan --help')"));
    // Only where the command has the other one.
    expect(() => parseArgs(command, ['--output', 'json'])).toThrow(new UsageError("unknown flag --output (see 'dashcd demo --help')"));
  });

  it('refuses a flag written with one dash (Terraform\'s -out=plan, -auto-approve) instead of reading it as a file', () => {
    expect(() => parseArgs(command, ['-dri=x'])).toThrow(new UsageError("unknown flag -dri=x: dashcd's flags take two dashes: did you mean --dir? (an argument that starts with - goes after --: -- -dri=x) (see 'dashcd demo --help')"));
    expect(() => parseArgs(command, ['a', '-prune'])).toThrow(/^unknown flag -prune: dashcd's flags take two dashes: did you mean --prune\?/);
    expect(() => parseArgs(command, ['-auto-approve'])).toThrow(new UsageError("unknown flag -auto-approve: dashcd's flags take two dashes (an argument that starts with - goes after --: -- -auto-approve) (see 'dashcd demo --help')"));
    // Not flags: a lone dash, a negative number, a value of a flag, and anything after --.
    expect(parseArgs(command, ['-', '-5', '--dir', '-x', '--', '-y']).positionals).toEqual(['-', '-5', '-y']);
  });

  it('rejects a string flag without a value and a boolean flag with one', () => {
    expect(() => parseArgs(command, ['--dir'])).toThrow(/--dir needs a value/);
    expect(() => parseArgs(command, ['--dir', '--prune'])).toThrow(/--dir needs a value/);
    expect(() => parseArgs(command, ['--prune=yes'])).toThrow(/--prune takes no value/);
  });

  it('treats everything after -- as positionals', () => {
    expect(parseArgs(command, ['--', '--dir']).positionals).toEqual(['--dir']);
  });

  it('rejects surplus positionals for commands that take none', () => {
    const none = { ...command, positionals: [] };
    expect(() => parseArgs(none, ['extra'])).toThrow(/unexpected argument 'extra'/);
  });
});

describe('asksForHelp', () => {
  const ask = (argv: string[]) => asksForHelp(command.flags, argv);

  it('is a --help or -h word where a flag or positional stands, anywhere before --', () => {
    expect(ask(['--help'])).toBe(true);
    expect(ask(['-h'])).toBe(true);
    expect(ask(['a', '--prune', '--dir', 'x', '-h'])).toBe(true);
    expect(ask(['--dir=x', '--help'])).toBe(true);
    expect(ask(['--no-self-heal', '-h'])).toBe(true);
    expect(ask(['--dir', 'x', '--prune'])).toBe(false);
  });

  it('is not the value of a flag that takes one, as parseArgs reads it', () => {
    expect(ask(['--dir', '-h'])).toBe(false);
    expect(parseArgs(command, ['--dir', '-h']).flags.dir).toBe('-h');
    expect(ask(['--scopes', '-h', '--scopes', 'B'])).toBe(false);
    // parseArgs never takes a --word as a value, so this one asks for help.
    expect(ask(['--dir', '--help'])).toBe(true);
  });

  it('is not a word after --: that is a positional', () => {
    expect(ask(['--', '--help'])).toBe(false);
    expect(ask(['a', '--', '-h'])).toBe(false);
    expect(parseArgs(command, ['--', '--help']).positionals).toEqual(['--help']);
  });

  it('is a word after a flag the table does not know, which takes no value as far as help is concerned', () => {
    expect(ask(['--nope', '-h'])).toBe(true);
    expect(asksForHelp({}, ['-h'])).toBe(true);
  });
});

describe('closest', () => {
  it('suggests only near words', () => {
    expect(closest('plna', ['plan', 'apply'])).toBe('plan');
    expect(closest('xyzzy', ['plan', 'apply'])).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { defineCommand } from '../../../src/cli/command.js';
import { UsageError } from '../../../src/cli/exit-codes.js';
import { closest, parseArgs } from '../../../src/cli/parse-args.js';

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

describe('closest', () => {
  it('suggests only near words', () => {
    expect(closest('plna', ['plan', 'apply'])).toBe('plan');
    expect(closest('xyzzy', ['plan', 'apply'])).toBeUndefined();
  });
});

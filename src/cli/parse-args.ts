import { closest } from '../lib/closest.js';
import { UsageError } from './exit-codes.js';
import type { Command, FlagValues, ParsedArgs } from './command.js';

export { closest };

/**
 * Parses `--flag value`, `--flag=value`, `--no-flag` and positionals against a command's flag table.
 * Unknown flags are errors with a did-you-mean hint: a typo must never silently change what a command does.
 */
export function parseArgs(command: Command, argv: readonly string[]): ParsedArgs {
  const flags: Record<string, string | boolean | string[] | undefined> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (isSingleDashFlag(arg)) throw new UsageError(singleDashMessage(command, arg));
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    let name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let negated = false;
    if (flagSpec(command.flags, name) === undefined && name.startsWith('no-') && flagSpec(command.flags, name.slice(3))?.type === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const spec = flagSpec(command.flags, name);
    if (!spec) throw new UsageError(unknownFlagMessage(command, name));
    if (spec.type === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = !negated;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || (eq === -1 && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value (${spec.valueName ?? 'value'})`);
    }
    if (spec.multiple) {
      const previous = flags[name];
      flags[name] = [...(Array.isArray(previous) ? previous : []), value];
    } else flags[name] = value;
  }
  for (const [name, spec] of Object.entries(command.flags)) {
    if (flags[name] === undefined && spec.default !== undefined) flags[name] = spec.default;
  }
  checkPositionals(command, positionals);
  return { flags: flags as FlagValues, positionals };
}

/**
 * Whether `argv` asks for the command's help, read as parseArgs reads it: a `--help` or `-h` word where a flag or a
 * positional stands. Not one after `--` (a positional), nor the value of a flag that takes one (`--data-dir -h` names
 * a folder, as `git commit -m -h` is a message); a `--` word is never a value, so `--data-dir --help` is help. A flag
 * the table does not know takes no value here: its error waits until help was not asked for. A group has no flags.
 */
export function asksForHelp(flags: Command['flags'], argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
    const takesValue = arg.startsWith('--') && !arg.includes('=') && flagSpec(flags, arg.slice(2))?.type === 'string';
    if (takesValue && !argv[i + 1]?.startsWith('--')) i++;
  }
  return false;
}

/** The table's own entry: `--constructor` or `--toString` must not find an object's inherited members. */
function flagSpec(flags: Command['flags'], name: string): Command['flags'][string] | undefined {
  return Object.hasOwn(flags, name) ? flags[name] : undefined;
}

function checkPositionals(command: Command, positionals: readonly string[]): void {
  const specs = command.positionals ?? [];
  const variadic = specs.some((spec) => spec.variadic);
  if (!variadic && positionals.length > specs.length) {
    throw new UsageError(`unexpected argument '${positionals[specs.length]}'`);
  }
  const required = specs.filter((spec) => spec.required).length;
  if (positionals.length < required) {
    throw new UsageError(`missing argument <${specs[positionals.length]?.name ?? 'arg'}>`);
  }
}

function unknownFlagMessage(command: Command, name: string): string {
  const best = closestFlags(command, name);
  const foreign = `${command.path.join(' ')} --${name}`;
  const hint = best ? ` — did you mean ${best}?` : Object.hasOwn(OTHER_TOOLS_FLAGS, foreign) ? ` — ${OTHER_TOOLS_FLAGS[foreign]}` : '';
  return `unknown flag --${name}${hint} (see 'dashcd ${command.path.join(' ')} --help')`;
}

/** Flags other tools give a command for what another dashcd command does, by `command --flag`. */
const OTHER_TOOLS_FLAGS: Readonly<Record<string, string>> = {
  // kubectl's apply --dry-run.
  'apply --dry-run': "'dashcd plan' is the dry run: it shows what apply would change and writes nothing",
};

/**
 * Every command answers --help, which its flag table does not list. A hint changes at most half the name: more is
 * another flag, not a misspelling (`--env` where there is none got "did you mean --help?").
 */
function closestFlags(command: Command, name: string): string | undefined {
  // What another command calls the same thing (plan writes `--output json`, events query `--format jsonl`), and the
  // near spelling, both when they differ: preview's `--output png` meant --format, its `--output shots/` --out.
  const synonym = Object.hasOwn(FLAG_SYNONYMS, name) ? FLAG_SYNONYMS[name] : undefined;
  const near = closest(name, [...Object.keys(command.flags), 'help'], Math.floor(name.length / 2));
  const found = new Set([synonym !== undefined && Object.hasOwn(command.flags, synonym) ? synonym : undefined, near]);
  const names = [...found].filter((flag) => flag !== undefined).map((flag) => `--${flag}`);
  return names.length > 0 ? names.join(' or ') : undefined;
}

/** Flag names commands use for one purpose, each to the other. */
const FLAG_SYNONYMS: Readonly<Record<string, string>> = { output: 'format', format: 'output' };

/**
 * `-out=plan`, `-auto-approve`: a word with one dash and a letter is a flag written as Terraform and Go tools write
 * them; an id, a name or a file that starts so goes after `--`. `-h` is help, asked for before parsing.
 */
function isSingleDashFlag(arg: string): boolean {
  return /^-[A-Za-z]/.test(arg);
}

function singleDashMessage(command: Command, arg: string): string {
  const name = arg.slice(1).split('=')[0] ?? '';
  const best = closestFlags(command, name);
  const hint = `${best ? `: did you mean ${best}?` : ''} (an argument that starts with - goes after --: -- ${arg})`;
  return `unknown flag ${arg}: dashcd's flags take two dashes${hint} (see 'dashcd ${command.path.join(' ')} --help')`;
}

export type { FlagValues };

import type { Writable } from 'node:stream';
import type { Logger } from '../lib/logger.js';

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  /** Shown in help; also the value when the flag is absent. */
  readonly default?: string | boolean;
  readonly multiple?: boolean;
  readonly valueName?: string;
}

export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly variadic?: boolean;
  readonly required?: boolean;
}

export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

export interface ParsedArgs {
  readonly flags: FlagValues;
  readonly positionals: readonly string[];
}

/** Everything a command may touch of the outside world, so tests can run commands in-process. */
export interface CommandIo {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

export interface Command {
  /** Words that select the command, e.g. `['token', 'create']`. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  readonly positionals?: readonly PositionalSpec[];
  readonly examples: readonly string[];
  /**
   * Commands whose stdout already reports every action (plan, apply, pull…) log only warnings and errors unless
   * DASHCD_LOG_LEVEL asks for more, so a terminal or CI log does not show each write twice.
   */
  readonly quietLogs?: boolean;
  run(args: ParsedArgs, io: CommandIo): Promise<number>;
}

/** Identity helper that keeps command literals type-checked. */
export function defineCommand(command: Command): Command {
  return command;
}

export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanFlag(flags: FlagValues, name: string): boolean {
  return flags[name] === true;
}

export function listFlag(flags: FlagValues, name: string): string[] {
  const value = flags[name];
  if (Array.isArray(value)) return value.flatMap((item) => item.split(',')).filter((item) => item !== '');
  if (typeof value === 'string') return value.split(',').filter((item) => item !== '');
  return [];
}

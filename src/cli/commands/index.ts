import type { Command } from '../command.js';

/** The command table: every command dashcd has, in the order `--help` lists them. */
export const commands: readonly Command[] = [];

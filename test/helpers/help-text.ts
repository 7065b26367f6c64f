/**
 * Readers for the two places flags are documented: a command's `--help` text and the markdown tables of the README
 * and docs/. Both are parsed from their text, so a new flag or command is checked without anyone adding it to a list.
 */

export interface HelpFlag {
  /** The value's name in `--flag <name>`; undefined for a boolean flag. */
  readonly valueName: string | undefined;
  /** The text of a trailing `(default: …)`, if any. */
  readonly default: string | undefined;
}

// One space at least: the help pads the flag column to 22 characters, so a longer `--flag <value>` is followed by one.
const HELP_FLAG = /^ {2}(--[a-z][a-z0-9-]*)(?: <([^>]+)>)? +(.*)$/;

/**
 * `--help` text with each wrapped description or summary back on one line: a continuation line starts under the
 * description's first word, past the name column, where no other line of the help starts.
 */
export function unwrapHelp(help: string): string {
  return help.replace(/\n {3,}(?=\S)/g, ' ');
}

/** The flags of a command's `--help` text (`  --name <value>  description (default: x)`), `--help` itself left out. */
export function helpFlags(help: string): Map<string, HelpFlag> {
  const flags = new Map<string, HelpFlag>();
  for (const line of unwrapHelp(help).split('\n')) {
    const match = HELP_FLAG.exec(line);
    if (!match || match[1] === '--help') continue;
    const defaultText = /\(default: (.*)\)$/.exec(match[3] ?? '')?.[1];
    flags.set(match[1] as string, { valueName: match[2], default: defaultText });
  }
  return flags;
}

/** Cells of a markdown table row; `\|` inside a cell stays a literal pipe. */
export function tableCells(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The rows of the first markdown table after `heading` whose header row starts with `firstColumn`. */
export function tableAfter(markdown: string, heading: string, firstColumn: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line === heading);
  if (start < 0) throw new Error(`no heading '${heading}'`);
  const header = lines.findIndex((line, i) => i > start && line.startsWith(`| ${firstColumn} |`));
  if (header < 0) throw new Error(`no table starting with '${firstColumn}' after '${heading}'`);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(tableCells(line));
  }
  return rows;
}

export interface MentionedFlag {
  readonly flag: string;
  /** The word after the flag, when it is one: `--since 30d` → `30d`. */
  readonly value: string | undefined;
}

/** `--flag value` pairs in a usage line such as `dashcd events pull [--since 30d] [--follow [--interval 60s]]`. */
export function mentionedFlags(usage: string): MentionedFlag[] {
  return [...usage.matchAll(/(--[a-z][a-z0-9-]*)(?: ([^\s[\]-][^\s[\]]*))?/g)].map((m) => ({ flag: m[1] as string, value: m[2] }));
}

/**
 * Whether a value written after a flag in the docs states a default: `16`, `30d`, `events-archive` do; a
 * placeholder (`URL`, `T`, `DIR`) or a list of choices (`text|json`) does not.
 */
export function isStatedDefault(value: string | undefined): value is string {
  return value !== undefined && !value.includes('|') && !/^[A-Z][A-Z0-9_.]*$/.test(value);
}

/** The words of a usage line that name the command: `dashcd token create|list|revoke` → three paths. */
export function usagePaths(usage: string): string[][] {
  const words = usage.replace(/^dashcd\s+/, '').split(/\s+/);
  const end = words.findIndex((w) => /^[[<-]/.test(w) || /^[A-Z]/.test(w));
  const pathWords = end < 0 ? words : words.slice(0, end);
  return pathWords.reduce<string[][]>((paths, word) => paths.flatMap((p) => word.split('|').map((alt) => [...p, alt])), [[]]);
}

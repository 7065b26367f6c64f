import type { Command } from './command.js';
import { wrapped, wrappedParagraphs, wrappedWords } from './help-wrap.js';

/** Where a flag's or argument's description starts: after two spaces and a 22-column name. */
const DESCRIPTION_COLUMN = 25;
/** Where a command's summary starts in a list of commands. */
const SUMMARY_COLUMN = 21;

export function commandHelp(command: Command): string {
  const positionals = (command.positionals ?? [])
    .map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`) + (p.variadic ? '...' : ''))
    .join(' ');
  const lines = [`Usage: dashcd ${command.path.join(' ')}${positionals ? ` ${positionals}` : ''} [flags]`, '', ...wrapped('', command.summary, 0)];
  if (command.description) lines.push('', ...wrappedParagraphs(command.description));
  if (command.positionals?.length) {
    lines.push('', 'Arguments:');
    for (const p of command.positionals) lines.push(...described(p.name, p.description));
  }
  lines.push('', 'Flags:');
  for (const [name, spec] of Object.entries(command.flags)) {
    const left = spec.type === 'boolean' ? `--${name}` : `--${name} <${spec.valueName ?? 'value'}>`;
    const def = spec.default !== undefined && spec.default !== false ? ` (default: ${String(spec.default)})` : '';
    lines.push(...described(left, `${spec.description}${def}`));
  }
  lines.push(...described('--help', 'Show this help'));
  if (command.examples.length) {
    // Never wrapped: an example is copied and run as it stands.
    lines.push('', 'Examples:');
    for (const example of command.examples) lines.push(`  ${example}`);
  }
  return `${lines.join('\n')}\n`;
}

export function overviewHelp(commands: readonly Command[]): string {
  const lines = ['dashcd — dashboards as code: validate, plan and apply dashboards; archive events', '', 'Usage: dashcd <command> [flags]', '', 'Commands:'];
  lines.push(...commands.flatMap(commandLines));
  lines.push(
    '',
    ...wrapped('', "Run 'dashcd <command> --help' for a command's flags and examples; 'dashcd --version' prints the version.", 0),
    ...wrappedWords('', ['Exit', 'codes:', ...EXIT_CODES.map((code, i) => `${code}${i < EXIT_CODES.length - 1 ? ',' : '.'}`)], 0),
  );
  return `${lines.join('\n')}\n`;
}

/** Each code with its meaning, kept on one line when the list wraps: a code read apart from its meaning says nothing. */
const EXIT_CODES = [
  '0 ok',
  '1 other failure (named in its message)',
  '2 changes pending',
  '3 invalid desired state',
  '4 target unreachable or token rejected',
  '5 some dashboards failed',
  '64 usage error',
  '130 interrupted',
];

/** What each group of subcommands is for, shown by `dashcd token` and `dashcd token --help`. */
const GROUP_SUMMARIES: Readonly<Record<string, string>> = {
  token: 'Manage the API tokens of the embedded store',
  events: 'Archive the events feed as JSONL and query the archive',
};

/** The subcommands under `group` (`token` → token create, token list, token revoke), in table order. */
export function groupMembers(commands: readonly Command[], group: string): Command[] {
  return commands.filter((c) => c.path.length > 1 && c.path[0] === group);
}

/** Help for a command group: its subcommands, one line each. */
export function groupHelp(group: string, members: readonly Command[]): string {
  const lines = [`Usage: dashcd ${group} <command> [flags]`, ''];
  const summary = GROUP_SUMMARIES[group];
  if (summary) lines.push(summary, '');
  lines.push('Commands:');
  lines.push(...members.flatMap(commandLines));
  lines.push('', ...wrapped('', `Run 'dashcd ${group} <command> --help' for a command's flags and examples.`, 0));
  return `${lines.join('\n')}\n`;
}

function commandLines(command: Command): string[] {
  return wrapped(`  ${command.path.join(' ').padEnd(SUMMARY_COLUMN - 3)} `, command.summary, SUMMARY_COLUMN);
}

/** A flag's or argument's lines: its name, then its description wrapped under the description column. */
function described(name: string, description: string): string[] {
  return wrapped(`  ${name.padEnd(DESCRIPTION_COLUMN - 3)} `, description, DESCRIPTION_COLUMN);
}

import type { Command } from './command.js';

export function commandHelp(command: Command): string {
  const positionals = (command.positionals ?? [])
    .map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`) + (p.variadic ? '...' : ''))
    .join(' ');
  const lines = [`Usage: dashcd ${command.path.join(' ')}${positionals ? ` ${positionals}` : ''} [flags]`, '', command.summary];
  if (command.description) lines.push('', command.description);
  if (command.positionals?.length) {
    lines.push('', 'Arguments:');
    for (const p of command.positionals) lines.push(`  ${p.name.padEnd(22)} ${p.description}`);
  }
  lines.push('', 'Flags:');
  for (const [name, spec] of Object.entries(command.flags)) {
    const left = spec.type === 'boolean' ? `--${name}` : `--${name} <${spec.valueName ?? 'value'}>`;
    const def = spec.default !== undefined && spec.default !== false ? ` (default: ${String(spec.default)})` : '';
    lines.push(`  ${left.padEnd(22)} ${spec.description}${def}`);
  }
  lines.push(`  ${'--help'.padEnd(22)} Show this help`);
  if (command.examples.length) {
    lines.push('', 'Examples:');
    for (const example of command.examples) lines.push(`  ${example}`);
  }
  return `${lines.join('\n')}\n`;
}

export function overviewHelp(commands: readonly Command[]): string {
  const lines = ['dashcd — dashboards as code: validate, plan and apply dashboards; archive events', '', 'Usage: dashcd <command> [flags]', '', 'Commands:'];
  lines.push(...commands.map(commandLine));
  lines.push('', "Run 'dashcd <command> --help' for a command's flags and examples; 'dashcd --version' prints the version.", 'Exit codes: 0 ok, 1 other failure (named in its message), 2 changes pending, 3 invalid desired state, 4 target unreachable or token rejected, 5 some dashboards failed, 64 usage error, 130 interrupted.');
  return `${lines.join('\n')}\n`;
}

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
  lines.push(...members.map(commandLine));
  lines.push('', `Run 'dashcd ${group} <command> --help' for a command's flags and examples.`);
  return `${lines.join('\n')}\n`;
}

function commandLine(command: Command): string {
  return `  ${command.path.join(' ').padEnd(18)} ${command.summary}`;
}

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
  for (const command of commands) lines.push(`  ${command.path.join(' ').padEnd(18)} ${command.summary}`);
  lines.push('', "Run 'dashcd <command> --help' for a command's flags and examples.", 'Exit codes: 0 ok, 1 unexpected error, 2 changes pending, 3 invalid desired state, 4 target unreachable or token rejected, 5 some dashboards failed, 64 usage error.');
  return `${lines.join('\n')}\n`;
}

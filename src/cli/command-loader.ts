import type { Command } from './command.js';

interface LazyCommand {
  readonly path: readonly string[];
  load(): Promise<Command>;
}

/**
 * Where each command lives, so `dashcd <command>` loads only that command's modules (start-up is most of a small
 * command's time: `validate` needs no HTTP client, `token list` no YAML). Same order and paths as the table in
 * `commands/index.ts`; a test keeps the two equal.
 */
export const LAZY_COMMANDS: readonly LazyCommand[] = [
  { path: ['validate'], load: async () => (await import('./commands/validate.js')).validateCommand },
  { path: ['plan'], load: async () => (await import('./commands/plan.js')).planCommand },
  { path: ['preview'], load: async () => (await import('./commands/preview.js')).previewCommand },
  { path: ['apply'], load: async () => (await import('./commands/apply.js')).applyCommand },
  { path: ['pull'], load: async () => (await import('./commands/pull.js')).pullCommand },
  { path: ['pin'], load: async () => (await import('./commands/pin.js')).pinCommand },
  { path: ['trash', 'list'], load: async () => (await import('./commands/trash.js')).trashListCommand },
  { path: ['trash', 'restore'], load: async () => (await import('./commands/trash.js')).trashRestoreCommand },
  { path: ['schema'], load: async () => (await import('./commands/schema.js')).schemaCommand },
  { path: ['serve'], load: async () => (await import('./commands/serve.js')).serveCommand },
  { path: ['token', 'create'], load: async () => (await import('./commands/token.js')).tokenCreateCommand },
  { path: ['token', 'list'], load: async () => (await import('./commands/token.js')).tokenListCommand },
  { path: ['token', 'revoke'], load: async () => (await import('./commands/token.js')).tokenRevokeCommand },
  { path: ['installer-url'], load: async () => (await import('./commands/installer-url.js')).installerUrlCommand },
  { path: ['events', 'pull'], load: async () => (await import('./commands/events-pull.js')).eventsPullCommand },
  { path: ['events', 'query'], load: async () => (await import('./commands/events-query.js')).eventsQueryCommand },
  { path: ['events', 'stats'], load: async () => (await import('./commands/events-stats.js')).eventsStatsCommand },
  { path: ['events', 'import'], load: async () => (await import('./commands/events-import.js')).eventsImportCommand },
  { path: ['daemon'], load: async () => (await import('./commands/daemon.js')).daemonCommand },
];

/**
 * The one command `argv` names, loaded alone; none for `--version` (it reads no command: loading them all took half
 * a second); the whole table when it names none (overview help, typo hints).
 */
export async function commandsFor(argv: readonly string[]): Promise<readonly Command[]> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return [];
  let best: LazyCommand | undefined;
  for (const entry of LAZY_COMMANDS) {
    const matches = entry.path.every((word, i) => argv[i] === word);
    if (matches && (!best || entry.path.length > best.path.length)) best = entry;
  }
  if (best) return [await best.load()];
  return (await import('./commands/index.js')).commands;
}

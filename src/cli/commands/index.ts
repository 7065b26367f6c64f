import type { Command } from '../command.js';
import { applyCommand } from './apply.js';
import { daemonCommand } from './daemon.js';
import { eventsImportCommand } from './events-import.js';
import { eventsPullCommand } from './events-pull.js';
import { eventsQueryCommand } from './events-query.js';
import { eventsStatsCommand } from './events-stats.js';
import { installerUrlCommand } from './installer-url.js';
import { pinCommand } from './pin.js';
import { planCommand } from './plan.js';
import { previewCommand } from './preview.js';
import { pullCommand } from './pull.js';
import { schemaCommand } from './schema.js';
import { serveCommand } from './serve.js';
import { tokenCreateCommand, tokenListCommand, tokenRevokeCommand } from './token.js';
import { trashListCommand, trashRestoreCommand } from './trash.js';
import { validateCommand } from './validate.js';

/** The command table: every command dashcd has, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  validateCommand,
  planCommand,
  previewCommand,
  applyCommand,
  pullCommand,
  pinCommand,
  trashListCommand,
  trashRestoreCommand,
  schemaCommand,
  serveCommand,
  tokenCreateCommand,
  tokenListCommand,
  tokenRevokeCommand,
  installerUrlCommand,
  eventsPullCommand,
  eventsQueryCommand,
  eventsStatsCommand,
  eventsImportCommand,
  daemonCommand,
];

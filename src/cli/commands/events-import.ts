import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EnvironmentId } from '../../schema/ids.js';
import { acquireOwnership, DataDirLockedError, dataDirLayout, listEnvironments, readOwner, type OwnerInfo, type Ownership } from '../../server/data-dir.js';
import { oversizeDocument } from '../../server/feed/event-document.js';
import type { RecordPlace } from '../../server/feed/import-records.js';
import { importEvents, type BadLine } from '../../server/feed/importer.js';
import { defineCommand, stringFlag } from '../command.js';
import { dataFlag } from '../common-flags.js';
import { dataDirOf } from '../data-dir-default.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { projectEmbeddedEnvironments } from '../project-environments.js';
import { misspeltEnvironment } from '../token-env-note.js';
import { count } from '../diagnostics-output.js';

/** Bad events printed one by one before the rest are only counted. */
const SHOWN_BAD_EVENTS = 50;

export const eventsImportCommand = defineCommand({
  path: ['events', 'import'],
  summary: 'Load events (EventRestEntry JSONL, or a saved events API answer) into the embedded server\'s event store',
  description:
    'Appends every event of FILE to the event store of one environment of the data dir, in order: a later event with ' +
    'the same id replaces the earlier one (that is how an open event becomes closed). FILE is JSONL, one event per ' +
    'line, or one answer of the events API as curl saves it (a JSON object with an `events` array, pretty-printed or ' +
    'not, up to 16 MiB; a larger one is refused, exit 3), whose elements are imported as if each were a line. Events that are not valid are reported ' +
    'as FILE:LINE (FILE: events[N] for an answer, N from 0) and skipped; the exit code is then 3. The server must be stopped while ' +
    'importing (the store has one writer): while a dashcd owns the data dir the import refuses, naming it, and exits ' +
    '4 like every command that cannot use its target. The next `dashcd serve` serves the imported events.',
  // The store's own lines (opened, snapshot read) are not the command's output: the summary line is.
  quietLogs: true,
  flags: {
    data: dataFlag,
    env: { type: 'string', description: 'Environment to import into', default: 'local', valueName: 'id' },
  },
  positionals: [{ name: 'FILE', description: 'JSONL file, one EventRestEntry per line; or a JSON events API answer', required: true }],
  examples: ['dashcd events import events.jsonl', 'dashcd events import events-page.json', 'dashcd events import --data /var/lib/dashcd --env prod closed-events.jsonl'],
  async run({ flags, positionals }, io) {
    const root = await dataDirOf(stringFlag(flags, 'data'), io.cwd);
    const env = parseEnv(stringFlag(flags, 'env') ?? 'local');
    // As token create: a name one edit from a declared environment made a new environment of its own, exit 0.
    const misspelt = misspeltEnvironment(env, await projectEmbeddedEnvironments(io.cwd), await listEnvironments(root));
    if (misspelt !== undefined) throw new UsageError(misspelt);
    const file = resolve(io.cwd, positionals[0] ?? '');
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE to import');
    const isFile = await stat(file).then((s) => s.isFile(), () => false);
    if (!isFile) throw new UsageError(`${file} is not a readable file`);
    const oversize = await oversizeDocument(file);
    if (oversize !== undefined) throw new CliError(oversize, ExitCode.InvalidDesiredState);
    const ownership = await takeOwnership(root);
    try {
      let shown = 0;
      const onBadLine = (bad: BadLine): void => {
        if (shown++ < SHOWN_BAD_EVENTS) io.stderr.write(`${file}${placeText(bad.place)}: ${bad.problems.join('; ')}\n`);
      };
      const outcome = await importEvents({ file, eventsDir: dataDirLayout(root).eventsDir(env), log: io.log, onBadLine });
      if (outcome.badLines > SHOWN_BAD_EVENTS) io.stderr.write(`… and ${outcome.badLines - SHOWN_BAD_EVENTS} more bad events\n`);
      io.stdout.write(
        `imported ${file} into ${env}: ${outcome.created} new, ${outcome.replaced} replaced, ${outcome.badLines} skipped; ` +
          `the store holds ${count(outcome.storeSize, 'event')}\n`,
      );
      return outcome.badLines > 0 ? ExitCode.InvalidDesiredState : ExitCode.Success;
    } finally {
      await ownership.release();
    }
  },
});

/** `:7` for a JSONL line, `: events[3]` for an element of an answer (as the API names it), `: [3]` of a bare array. */
function placeText(place: RecordPlace): string {
  return 'line' in place ? `:${place.line}` : `: ${place.within}[${place.item}]`;
}

function parseEnv(raw: string): EnvironmentId {
  const parsed = EnvironmentId.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--env '${raw}' is not an environment id (lowercase letters, digits, dashes)`);
  return parsed.data;
}

/** The import writes the store directly, so no server may hold the data dir meanwhile. */
async function takeOwnership(root: string): Promise<Ownership> {
  const owner = await readOwner(root);
  if (owner) throw serverRunning(root, owner);
  try {
    // A command's hold, not a server that stays: others wait for it to end, however long the import takes.
    return await acquireOwnership(root, { lasting: false });
  } catch (error) {
    if (error instanceof DataDirLockedError) throw error.unreachable ? error : serverRunning(root, error.owner, error);
    throw error;
  }
}

/** Exit 4, as serve, the daemon and plan/apply exit when another dashcd holds the data dir they need. */
function serverRunning(root: string, owner: OwnerInfo, cause?: unknown): CliError {
  const where = owner.url ? ` serving ${owner.url}` : '';
  return new CliError(
    `data dir ${root} is in use by dashcd pid ${owner.pid}${where}: stop that server, run the import, then start it again ` +
      '(the event store has one writer)',
    ExitCode.TargetUnavailable,
    { cause },
  );
}

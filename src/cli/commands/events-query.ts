import type { Writable } from 'node:stream';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { listEnvironments } from '../../archive/archive-layout.js';
import { queryArchive, sameType, type QueriedEvent, type QueryArchiveOptions } from '../../archive/query-archive.js';
import type { ArchivedEventView } from '../../archive/archived-event.js';
import { parseTimeArg, type TimeBound } from '../../archive/time-arg.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { closest } from '../parse-args.js';
import { printable } from '../../lib/printable.js';
import { archiveDirOf } from '../data-dir-default.js';
import { archiveFlag } from '../common-flags.js';

export const toFlag = { type: 'string', description: 'Events starting at or before (a bare date: through that whole day)', valueName: 'time' } as const;

export const eventsQueryCommand = defineCommand({
  path: ['events', 'query'],
  summary: 'Print archived events that match filters (JSONL, or a table in a terminal)',
  description:
    'Reads only the date= partitions that overlap --from/--to, a day at a time, and prints events oldest first (by\n' +
    'start time). Times filter on the event start and take now, today, yesterday, ISO dates and date-times (UTC:\n' +
    '2024-05-01, "2024-05-01 10:00", 2024-05-01T10:00Z), epoch ms, or 7d / 12h / 30m back from now; both ends are\n' +
    'inclusive, and a bare date as --to covers that whole day (as today and yesterday do). --latest prints each event once,\n' +
    'as its newest version (then --status matches that version). Each event names its environment folder: an `env`\n' +
    'member first in JSONL, the ENV column in the table. The table cuts long types and entity names with …, never an\n' +
    'id. An --env or --archive that names nothing is exit 64. An unreadable archive line is reported on stderr as FILE:LINE.',
  flags: {
    archive: archiveFlag,
    env: { type: 'string', description: 'Only this environment folder (default: all)', valueName: 'id' },
    type: { type: 'string', description: 'Only this eventType (any case)', valueName: 'eventType' },
    entity: { type: 'string', description: 'Only this entityId', valueName: 'entityId' },
    status: { type: 'string', description: 'OPEN or CLOSED', valueName: 'status' },
    from: { type: 'string', description: 'Events starting at or after (7d, today, 2024-05-01, epoch ms)', valueName: 'time' },
    to: toFlag,
    latest: { type: 'boolean', description: 'Only the newest version of each event' },
    format: { type: 'string', description: 'jsonl or table (default: table in a terminal, else jsonl)', valueName: 'format' },
  },
  examples: [
    'dashcd events query --from 7d --type CUSTOM_DEPLOYMENT',
    'dashcd events query --latest --status OPEN --format table',
    "dashcd events query --from 2024-05-01 --to 2024-05-31 | jq -r '.entityName' | sort | uniq -c",
  ],
  async run({ flags }, io) {
    const options = await queryOptions(flags, io);
    await checkArchive(options.archiveDir, options.env);
    const format = stringFlag(flags, 'format') ?? (io.stdout.isTTY === true ? 'table' : 'jsonl');
    if (format !== 'jsonl' && format !== 'table') throw new UsageError(`--format must be jsonl or table, got '${format}'`);
    const table = format === 'table' ? new StreamedTable() : undefined;
    let closed = false;
    const onError = (): void => {
      closed = true; // the reader went away (e.g. `| head`): stop quietly
    };
    io.stdout.on('error', onError);
    let printed = 0;
    // What the range holds, gathered as it is read, for the note when --type or --entity matches nothing there.
    const types = new Set<string>();
    const entities = new EntityHints(options.entityId);
    const gather = (event: ArchivedEventView): void => {
      if (options.eventType !== undefined) types.add(event.eventType ?? '(none)');
      entities.read(event);
    };
    try {
      for await (const item of queryArchive({ ...options, onRead: gather })) {
        if (closed) break;
        printed++;
        const text = table ? table.add(item) : jsonLine(item);
        if (text !== '' && !io.stdout.write(text)) await drainOrClose(io.stdout);
      }
      if (table && !closed) io.stdout.write(table.end());
    } finally {
      io.stdout.off('error', onError);
    }
    if (printed === 0 && options.eventType !== undefined) io.stderr.write(unknownTypeNote([...types], options.eventType));
    if (printed === 0) io.stderr.write(entities.note());
    // "What is open?" answered with every version archived while open, of events closed since too.
    if (printed > 0 && options.status === 'OPEN' && options.latest !== true) io.stderr.write('note: --status OPEN lists every version archived while open, of events that have closed since too: add --latest for the events open now\n');
    return ExitCode.Success;
  },
});

/**
 * Why a query by entity printed nothing, when the range holds no event of that entity id: the ids of the entities
 * that name (`--entity auth-api`, a name, printed nothing and said nothing), or of that id in another case. Only the
 * first few ids are kept, whatever the archive holds.
 */
class EntityHints {
  private readonly named = new Set<string>();
  private readonly otherCase = new Set<string>();
  private found = false;

  constructor(private readonly entityId: string | undefined) {}

  read(event: ArchivedEventView): void {
    const wanted = this.entityId;
    if (wanted === undefined || this.found || event.entityId === undefined) return;
    if (event.entityId === wanted) this.found = true;
    else if (this.named.size < MAX_HINTED && event.entityName !== undefined && event.entityName.toLowerCase() === wanted.toLowerCase()) this.named.add(event.entityId);
    else if (this.otherCase.size < MAX_HINTED && event.entityId.toLowerCase() === wanted.toLowerCase()) this.otherCase.add(event.entityId);
  }

  note(): string {
    if (this.entityId === undefined || this.found) return '';
    const wanted = printable(this.entityId);
    const start = `note: no event of entity id ${wanted} in the archive over that range`;
    const named = [...this.named].map(printable);
    if (named.length > 0) return `${start} — --entity takes an entity's id, and ${wanted} is the name of ${named.join(', ')} (--entity ${named[0] ?? ''})\n`;
    const near = [...this.otherCase].map(printable);
    if (near.length > 0) return `${start} — ids match exactly, case included: did you mean ${near.join(' or ')}?\n`;
    return `${start} (--entity takes an entity's id, such as HOST-0123456789ABCDEF)\n`;
  }
}

const MAX_HINTED = 5;

/**
 * Why a query by type printed nothing, when the range holds no event of that type: the types it has there, the
 * nearest first (`--type high_latncy` printed nothing and said nothing). Empty when the type is there and only the
 * other filters left nothing.
 */
function unknownTypeNote(types: readonly string[], type: string): string {
  if (types.some((known) => sameType(known, type))) return '';
  const near = closest(type, types, Math.floor(type.length / 2));
  const guess = near === undefined ? '' : ` — did you mean ${printable(near)}?`;
  const listed = types.length === 0 ? 'no events at all there' : `types there: ${types.slice(0, 20).map(printable).join(', ')}${types.length > 20 ? ', …' : ''}`;
  return `note: no event of type ${printable(type)} in the archive over that range${guess} (${listed})\n`;
}

async function queryOptions(flags: FlagValues, io: CommandIo): Promise<QueryArchiveOptions> {
  const now = Date.now();
  const status = stringFlag(flags, 'status')?.toUpperCase();
  if (status !== undefined && status !== 'OPEN' && status !== 'CLOSED') throw new UsageError(`--status must be OPEN or CLOSED, got '${status}'`);
  return {
    archiveDir: await archiveDirOf(stringFlag(flags, 'archive'), io.cwd, 'read'),
    env: stringFlag(flags, 'env'),
    eventType: stringFlag(flags, 'type'),
    entityId: stringFlag(flags, 'entity'),
    status,
    ...timeRange(flags, now),
    latest: booleanFlag(flags, 'latest'),
    signal: io.signal,
    onBadLine: badLineReporter(io),
  };
}

/**
 * `FILE:LINE: skipped an unreadable line: why` on stderr. The file's path holds the archive's folder names and the
 * reason JSON.parse's words, which quote the start of the line: both the archive's text, made `printable`.
 */
export function badLineReporter(io: Pick<CommandIo, 'stderr'>): (file: string, line: number, message: string) => void {
  return (file, line, message) => io.stderr.write(`${printable(file)}:${line}: skipped an unreadable line: ${printable(message)}\n`);
}

/**
 * The archive and environment a query reads must exist: an empty answer from a typo (`--env prd`) or a wrong
 * `--archive` would pass for "no events". Exit 64, naming the environments the archive has.
 */
export async function checkArchive(archiveDir: string, env: string | undefined): Promise<void> {
  const found = await stat(archiveDir).catch(() => undefined);
  if (!found?.isDirectory()) throw new UsageError(`no events archive at ${archiveDir}: run 'dashcd events pull' first, or name the archive folder with --archive`);
  const envs = await listEnvironments(archiveDir);
  refuseInnerFolder(archiveDir, envs);
  if (env === undefined) return;
  if (envs.includes(env)) return;
  const has = envs.length > 0 ? `it has: ${printable(envs.join(', '))}` : "it has none yet (run 'dashcd events pull')";
  const near = closest(env, envs);
  throw new UsageError(`no environment '${env}' in ${archiveDir}${near === undefined ? '' : ` — did you mean ${printable(near)}?`}; ${has}`);
}

/**
 * An `--archive` naming a folder inside an archive, the usual slip with a folder per environment and per day: read as
 * an archive, one environment's folder had its days for environments and answered nothing, exit 0.
 */
function refuseInnerFolder(archiveDir: string, names: readonly string[]): void {
  const day = /^date=(\d{4}-\d{2}-\d{2})$/;
  const dayOf = day.exec(basename(archiveDir))?.[1];
  if (dayOf !== undefined) {
    const envDir = dirname(archiveDir);
    throw new UsageError(`${archiveDir} is one day of an events archive: name the archive itself, with that day — --archive ${dirname(envDir)} --env ${printable(basename(envDir))} --from ${dayOf} --to ${dayOf}`);
  }
  if (names.some((name) => day.test(name))) {
    throw new UsageError(`${archiveDir} is one environment's folder of an events archive (it holds date=… days): name the archive itself — --archive ${dirname(archiveDir)} --env ${printable(basename(archiveDir))}`);
  }
}

/** `--from` and `--to` as instants; a range that ends before it starts is refused (it printed nothing, exit 0). */
export function timeRange(flags: FlagValues, now: number): { from: number | undefined; to: number | undefined } {
  const from = timeFlag(flags, 'from', now);
  const to = timeFlag(flags, 'to', now, 'end');
  if (from !== undefined && to !== undefined && from > to) {
    throw new UsageError(`--from ${stringFlag(flags, 'from') ?? ''} is after --to ${stringFlag(flags, 'to') ?? ''}: no event can lie between them`);
  }
  return { from, to };
}

function timeFlag(flags: FlagValues, name: string, now: number, bound: TimeBound = 'start'): number | undefined {
  const raw = stringFlag(flags, name);
  if (raw === undefined) return undefined;
  try {
    return parseTimeArg(raw, now, bound);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
}

/**
 * Resolves when a stream that refused a write can take more, or has closed (the reader went away). Both listeners go
 * either way: a `once` left behind per back-pressured write piles up into a MaxListenersExceededWarning.
 */
function drainOrClose(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/**
 * Minimum widths. Type and entity name are cut with `…` to keep rows short; ids and the environment never are (they
 * are what the next query's --entity and --env take, and what a reader copies), so the event id comes last.
 */
const COLUMNS = [
  ['START (UTC)', 19, 'whole'],
  ['ENV', 7, 'whole'],
  ['STATUS', 6, 'whole'],
  ['TYPE', 20, 'cut'],
  ['ENTITY NAME', 19, 'cut'],
  ['ENTITY ID', 21, 'whole'],
  ['ID', 0, 'whole'],
] as const;
/** Rows read before the table's widths are chosen: enough to see the ids an archive holds, few to wait for. */
const SAMPLE_ROWS = 100;
/** A column widened by the sample grows to at most this: one odd value pushes its own row, not every row. */
const MAX_FITTED_WIDTH = 48;

/** The archived line with the environment it came from as its first member (the line is a JSON object). */
function jsonLine({ raw, env }: QueriedEvent): string {
  return `{"env":${JSON.stringify(env)},${raw.trimStart().slice(1)}\n`;
}

/**
 * The table, written as rows stream: its widths fit the first SAMPLE_ROWS rows (a `PROCESS_GROUP_INSTANCE-…` id is
 * 39 characters, and pushed every ID after it out of line under a 21-wide column), then stay; a later, longer cell
 * pushes the rest of its own row. `add` gives the text to write now (nothing while sampling), `end` the rest.
 */
class StreamedTable {
  private sample: string[][] | undefined = [];
  private widths: number[] = COLUMNS.map(([, width]) => width);

  add(item: QueriedEvent): string {
    const cells = tableCells(item);
    if (this.sample === undefined) return row(cells, this.widths);
    this.sample.push(cells);
    return this.sample.length < SAMPLE_ROWS ? '' : this.flush();
  }

  /** The header and the sampled rows, when fewer than SAMPLE_ROWS came: the header alone for none. */
  end(): string {
    return this.sample === undefined ? '' : this.flush();
  }

  private flush(): string {
    const sample = this.sample ?? [];
    this.sample = undefined;
    this.widths = COLUMNS.map(([, width, fit], i) => (fit === 'cut' ? width : Math.max(width, Math.min(MAX_FITTED_WIDTH, longest(sample, i)))));
    return [COLUMNS.map(([title]) => title), ...sample].map((cells) => row(cells, this.widths)).join('');
  }
}

function longest(rows: readonly string[][], column: number): number {
  return rows.reduce((most, cells) => Math.max(most, cells[column]?.length ?? 0), 0);
}

function tableCells({ event, env }: QueriedEvent): string[] {
  const start = new Date(event.startTime).toISOString().slice(0, 19).replace('T', ' ');
  // Text from the feed must not move the cursor or break the row.
  return [start, env, event.eventStatus ?? '-', event.eventType ?? '-', event.entityName ?? '-', event.entityId ?? '-', event.id].map(printable);
}

function row(cells: readonly string[], widths: readonly number[]): string {
  const fitted = cells.map((cell, i) => {
    const width = widths[i] ?? 0;
    return COLUMNS[i]?.[2] === 'cut' && cell.length > width ? `${cell.slice(0, width - 1)}…` : cell.padEnd(width);
  });
  return `${fitted.join(' ').trimEnd()}\n`;
}

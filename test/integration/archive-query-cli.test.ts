import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsQueryCommand } from '../../src/cli/commands/events-query.js';
import { eventsStatsCommand } from '../../src/cli/commands/events-stats.js';
import { runCli } from '../../src/cli/run.js';
import { silentLogger } from '../../src/lib/logger.js';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { renderEvent, type FeedEvent } from '../helpers/events-feed-server.js';

/**
 * An archive written by hand, as `events pull` lays it out: 2026-11-17 holds one event, 2026-11-18 three (one of
 * them in two versions: open, then closed), 2026-11-19 one.
 */
const HOUR = 3_600_000;
const DAY_18 = Date.UTC(2026, 10, 18);
let cwd: string;

function event(n: number, startTime: number, overrides: Partial<FeedEvent> = {}): FeedEvent {
  return {
    eventId: `-431421193692892017${n}`,
    startTime,
    endTime: startTime + 60_000,
    eventStatus: 'CLOSED',
    eventType: 'CUSTOM_INFO',
    entityId: `HOST-000000000000000${n}`,
    entityName: `host ${n}`,
    ...overrides,
  };
}

const OPEN = event(3, DAY_18 + 20 * HOUR, { eventStatus: 'OPEN', endTime: undefined });
const PARTITIONS: Record<string, FeedEvent[]> = {
  '2026-11-17': [event(1, DAY_18 - HOUR)],
  '2026-11-18': [event(2, DAY_18), OPEN, event(4, DAY_18 + 12 * HOUR), { ...OPEN, eventStatus: 'CLOSED', endTime: DAY_18 + 21 * HOUR }],
  '2026-11-19': [event(5, DAY_18 + 24 * HOUR)],
};

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-query-cli-'));
  for (const [day, events] of Object.entries(PARTITIONS)) {
    const dir = join(cwd, 'events-archive', 'prod', `date=${day}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'events.jsonl'), events.map((e) => `${renderEvent(e)}\n`).join(''));
  }
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function dashcd(argv: string[]): Promise<CliResult> {
  return runDashcd(argv, { cwd, commands: [eventsQueryCommand, eventsStatsCommand] });
}

function entityIds(result: CliResult): string[] {
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { entityId: string }).entityId);
}

describe('--from/--to with bare dates', () => {
  it('events query --from D --to D prints every version that starts on day D, oldest first, versions in written order', async () => {
    const result = await dashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(entityIds(result)).toEqual(['HOST-0000000000000002', 'HOST-0000000000000004', 'HOST-0000000000000003', 'HOST-0000000000000003']);
    expect(result.stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { eventStatus: string }).eventStatus).slice(2)).toEqual(['OPEN', 'CLOSED']);
  });

  it('--status OPEN without --latest prints the open versions and a note that some of those events have closed since', async () => {
    const all = await dashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18', '--status', 'OPEN']);
    expect(all).toMatchObject({ code: 0, stderr: 'note: --status OPEN lists every version archived while open, of events that have closed since too: add --latest for the events open now\n' });
    expect(entityIds(all)).toEqual(['HOST-0000000000000003']);
    // With --latest, the event closed since is not open: nothing, and no note.
    expect(await dashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18', '--status', 'OPEN', '--latest'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a bare --to date ends before the next UTC midnight, a date-time --to is exact', async () => {
    expect(entityIds(await dashcd(['events', 'query', '--to', '2026-11-17']))).toEqual(['HOST-0000000000000001']);
    expect(entityIds(await dashcd(['events', 'query', '--to', '2026-11-18T00:00:00Z']))).toEqual(['HOST-0000000000000001', 'HOST-0000000000000002']);
    expect(entityIds(await dashcd(['events', 'query', '--from', '2026-11-18T12:00:00Z', '--to', String(DAY_18 + 20 * HOUR)]))).toEqual([
      'HOST-0000000000000004',
      'HOST-0000000000000003',
      'HOST-0000000000000003',
    ]);
    expect(entityIds(await dashcd(['events', 'query', '--from', '2026-11-18 12:00', '--to', '2026-11-18 19:59']))).toEqual(['HOST-0000000000000004']);
    expect(entityIds(await dashcd(['events', 'query', '--from', '2026-11-19', '--to', 'now']))).toEqual(['HOST-0000000000000005']);
  });

  it('events stats --from D --to D counts the events of day D', async () => {
    const result = await dashcd(['events', 'stats', '--from', '2026-11-18', '--to', '2026-11-18', '--format', 'json']);
    expect(JSON.parse(result.stdout).prod).toMatchObject({ events: 3, byDay: { '2026-11-18': 3 } });
  });

  it('events stats counts versions inside the time range only', async () => {
    const result = await dashcd(['events', 'stats', '--from', '2026-11-18T12:00:00Z', '--to', '2026-11-18']);
    expect(result.stdout).toMatch(/^prod: 2 events \(3 versions\)\n/);
    // One is one: it said "1 events (1 versions)".
    const one = await dashcd(['events', 'stats', '--from', '2026-11-19', '--to', 'now']);
    expect(one.stdout).toMatch(/^prod: 1 event \(1 version\)\n/);
  });

  it('a range that ends before it starts is a usage error in query and stats (it printed nothing, exit 0)', async () => {
    for (const command of ['query', 'stats']) {
      const inverted = await dashcd(['events', command, '--from', '2026-11-19', '--to', '2026-11-17']);
      expect(inverted.code, command).toBe(64);
      expect(inverted.stderr, command).toContain('--from 2026-11-19 is after --to 2026-11-17: no event can lie between them');
    }
    // One day, both ends the same bare date, is a range.
    expect((await dashcd(['events', 'query', '--from', '2026-11-17', '--to', '2026-11-17'])).code).toBe(0);
  });

  it('--type matches in any case, as --status does (custom_info matched nothing, silently)', async () => {
    const lower = await dashcd(['events', 'query', '--type', 'custom_info', '--from', '2026-11-19', '--to', 'now']);
    expect(entityIds(lower)).toEqual(['HOST-0000000000000005']);
    // A type is any string a pusher chose, lower case too: upper-casing --type made `my_custom` unreachable.
    const dir = join(cwd, 'mixed-case', 'prod', 'date=2026-11-20');
    await mkdir(dir, { recursive: true });
    const start = DAY_18 + 48 * HOUR;
    await writeFile(join(dir, 'events.jsonl'), [event(6, start, { eventType: 'my_custom' }), event(7, start + HOUR)].map((e) => `${renderEvent(e)}\n`).join(''));
    for (const type of ['my_custom', 'MY_CUSTOM', 'My_Custom']) {
      expect(entityIds(await dashcd(['events', 'query', '--archive', 'mixed-case', '--type', type, '--from', '2026-11-20', '--to', 'now'])), type).toEqual(['HOST-0000000000000006']);
    }
  });

  it('a --type the archive does not have over the range prints nothing and says so, with the nearest type (it said nothing)', async () => {
    const typo = await dashcd(['events', 'query', '--type', 'custom_inf', '--from', '2026-11-17', '--to', 'now']);
    expect(typo).toEqual({ code: 0, stdout: '', stderr: 'note: no event of type custom_inf in the archive over that range — did you mean CUSTOM_INFO? (types there: CUSTOM_INFO)\n' });
    // A type that is there, with other filters leaving nothing: no note.
    expect(await dashcd(['events', 'query', '--type', 'CUSTOM_INFO', '--status', 'OPEN', '--from', '2026-11-19', '--to', 'now'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('events query --help says a bare --to date covers the whole day', async () => {
    const result = await dashcd(['events', 'query', '--help']);
    expect(result.stdout).toMatch(/a bare date as --to\s+covers that whole day/);
  });
});

describe('events query output that helps the next query', () => {
  it('an --env or --archive that names nothing is exit 64, naming the environments the archive has', async () => {
    const archive = join(cwd, 'events-archive');
    const query = await dashcd(['events', 'query', '--env', 'prd']);
    expect(query).toEqual({ code: 64, stdout: '', stderr: `dashcd events query: no environment 'prd' in ${archive} — did you mean prod?; it has: prod\n` });
    const stats = await dashcd(['events', 'stats', '--env', 'prd']);
    expect(stats).toEqual({ code: 64, stdout: '', stderr: `dashcd events stats: no environment 'prd' in ${archive} — did you mean prod?; it has: prod\n` });
    for (const command of ['query', 'stats']) {
      const missing = await dashcd(['events', command, '--archive', '/nonexistent']);
      expect(missing).toMatchObject({ code: 64, stdout: '' });
      expect(missing.stderr).toBe(`dashcd events ${command}: no events archive at /nonexistent: run 'dashcd events pull' first, or name the archive folder with --archive\n`);
    }
    await mkdir(join(cwd, 'empty-archive'), { recursive: true });
    const empty = await dashcd(['events', 'query', '--env', 'prod', '--archive', 'empty-archive']);
    expect(empty).toMatchObject({ code: 64, stderr: expect.stringMatching(/no environment 'prod' in .*empty-archive; it has none yet \(run 'dashcd events pull'\)\n$/) });
    expect(await dashcd(['events', 'query', '--env', 'prod'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('an --archive naming one environment’s folder, or one day’s, is exit 64 naming the archive to give (it answered nothing, exit 0)', async () => {
    const archive = join(cwd, 'events-archive');
    for (const command of ['query', 'stats']) {
      const env = await dashcd(['events', command, '--archive', 'events-archive/prod']);
      expect(env).toEqual({ code: 64, stdout: '', stderr: `dashcd events ${command}: ${archive}/prod is one environment's folder of an events archive (it holds date=… days): name the archive itself — --archive ${archive} --env prod\n` });
    }
    const [day] = (await readdir(join(archive, 'prod'))).filter((name) => name.startsWith('date='));
    const file = join(archive, 'prod', day as string, 'events.jsonl');
    // A query creates nothing: the advice for a file is not the pull's "it is created if missing".
    expect(await dashcd(['events', 'query', '--archive', file])).toEqual({ code: 64, stdout: '', stderr: `dashcd events query: --archive ${file}: ${file} is a file, not a folder: point --archive at the archive's folder\n` });
    const oneDay = await dashcd(['events', 'query', '--archive', `events-archive/prod/${day}`]);
    const date = (day as string).slice('date='.length);
    expect(oneDay).toEqual({ code: 64, stdout: '', stderr: `dashcd events query: ${archive}/prod/${day} is one day of an events archive: name the archive itself, with that day — --archive ${archive} --env prod --from ${date} --to ${date}\n` });
  });

  it('names each event\'s environment: the first member of a JSONL line, the ENV column of the table', async () => {
    const lines = (await dashcd(['events', 'query', '--from', '2026-11-17', '--to', '2026-11-17'])).stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\{"env":"prod","eventId":/);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ env: 'prod', entityId: 'HOST-0000000000000001' });
  });

  it('shows in the table the environment, the entity name, then the ids whole (never cut), so they can be copied', async () => {
    const table = await dashcd(['events', 'query', '--format', 'table', '--from', '2026-11-18', '--to', '2026-11-18']);
    const [header, first] = table.stdout.split('\n');
    expect(header).toMatch(/^START \(UTC\)\s+ENV\s+STATUS\s+TYPE\s+ENTITY NAME\s+ENTITY ID\s+ID$/);
    expect(first).toBe(`2026-11-18 00:00:00 prod    CLOSED CUSTOM_INFO          host 2              HOST-0000000000000002 -4314211936928920172_${DAY_18}`);
    const filtered = await dashcd(['events', 'query', '--entity', 'HOST-0000000000000002', '--format', 'table']);
    expect(filtered.stdout.trim().split('\n').slice(1)).toEqual([first]);
  });
});

describe('events query by an entity that matches nothing', () => {
  it('names the ids of the entities so named (--entity by name printed nothing and said nothing), or of that id in another case', async () => {
    const byName = await dashcd(['events', 'query', '--entity', 'Host 2']);
    expect(byName).toMatchObject({ code: 0, stdout: '' });
    expect(byName.stderr).toBe("note: no event of entity id Host 2 in the archive over that range — --entity takes an entity's id, and Host 2 is the name of HOST-0000000000000002 (--entity HOST-0000000000000002)\n");
    const lowerCase = await dashcd(['events', 'query', '--entity', 'host-0000000000000004']);
    expect(lowerCase.stderr).toBe('note: no event of entity id host-0000000000000004 in the archive over that range — ids match exactly, case included: did you mean HOST-0000000000000004?\n');
    const unknown = await dashcd(['events', 'query', '--entity', 'HOST-FFFF']);
    expect(unknown.stderr).toBe("note: no event of entity id HOST-FFFF in the archive over that range (--entity takes an entity's id, such as HOST-0000000000000000)\n".replace('HOST-0000000000000000', 'HOST-0123456789ABCDEF'));
    // A match, or no --entity: no note.
    expect((await dashcd(['events', 'query', '--entity', 'HOST-0000000000000004'])).stderr).toBe('');
    expect((await dashcd(['events', 'query', '--from', '2020-01-01', '--to', '2020-01-02'])).stderr).toBe('');
  });
});

describe('events query --format table over long entity ids', () => {
  it('fits its columns to the first 100 rows, so every ID lines up under its heading (a 39-character id pushed the rest out of line)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-query-table-'));
    try {
      const day = join(dir, 'events-archive', 'prod', 'date=2026-11-18');
      await mkdir(day, { recursive: true });
      const ids = ['HOST-0000000000000001', 'PROCESS_GROUP_INSTANCE-00000000000000AB', 'SERVICE-0000000000000003'];
      const events = Array.from({ length: 130 }, (_, i) => event(i % 10, DAY_18 + i * 60_000, { entityId: i === 120 ? `CLOUD_APPLICATION_NAMESPACE_INSTANCE_GROUP-${'0'.repeat(16)}` : ids[i % 3] }));
      await writeFile(join(day, 'events.jsonl'), events.map((e) => `${renderEvent(e)}\n`).join(''));
      const result = await runDashcd(['events', 'query', '--format', 'table'], { cwd: dir, commands: [eventsQueryCommand] });
      const [header = '', ...rows] = result.stdout.trimEnd().split('\n');
      expect(rows).toHaveLength(130);
      const idAt = header.indexOf(' ID', header.indexOf('ENTITY ID') + 'ENTITY ID'.length) + 1;
      expect(header.indexOf('ENTITY ID') + 'ENTITY ID'.padEnd(39).length + 1).toBe(idAt);
      const shifted = rows.filter((line) => !/^-?\d+_\d+$/.test(line.slice(idAt)));
      // Only the one id longer than any in the first 100 rows pushes its own row.
      expect(shifted).toHaveLength(1);
      expect(shifted[0]).toContain('CLOUD_APPLICATION_NAMESPACE_INSTANCE_GROUP-');
      // Fewer rows than the sample: widths from those rows; none: the header alone.
      const few = await runDashcd(['events', 'query', '--format', 'table', '--to', '2026-11-18 00:02'], { cwd: dir, commands: [eventsQueryCommand] });
      const fewLines = few.stdout.trimEnd().split('\n');
      expect(fewLines).toHaveLength(4);
      expect(new Set(fewLines.slice(1).map((line) => line.search(/-?\d+_\d+$/)))).toEqual(new Set([fewLines[0]?.lastIndexOf('ID')]));
      const none = await runDashcd(['events', 'query', '--format', 'table', '--from', '2020-01-01', '--to', '2020-01-02'], { cwd: dir, commands: [eventsQueryCommand] });
      expect(none.stdout).toMatch(/^START \(UTC\)\s+ENV\s+STATUS\s+TYPE\s+ENTITY NAME\s+ENTITY ID\s+ID\n$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('events query into a slow pipe', () => {
  it('waits for the reader without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-query-pipe-'));
    try {
      const day = join(dir, 'events-archive', 'prod', 'date=2026-11-18');
      await mkdir(day, { recursive: true });
      await writeFile(join(day, 'events.jsonl'), Array.from({ length: 40 }, (_, i) => `${renderEvent(event(i, DAY_18 + i * 60_000))}\n`).join(''));
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.name);
      process.on('warning', onWarning);
      // A reader slower than the writer: every write is refused until the previous line was taken.
      const lines: string[] = [];
      const stdout = new Writable({ highWaterMark: 1, write: (chunk, _encoding, done) => void setImmediate(() => (lines.push(String(chunk)), done())) });
      const io = { stdout, stderr: new PassThrough(), env: {}, cwd: dir, log: silentLogger(), signal: new AbortController().signal };
      expect(await runCli([eventsQueryCommand], ['events', 'query', '--format', 'jsonl'], io)).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
      expect(lines).toHaveLength(40);
      expect(stdout.listenerCount('close') + stdout.listenerCount('drain')).toBe(0);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

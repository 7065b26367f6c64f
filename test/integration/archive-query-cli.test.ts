import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsQueryCommand } from '../../src/cli/commands/events-query.js';
import { eventsStatsCommand } from '../../src/cli/commands/events-stats.js';
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
  it('events query --from D --to D prints every version that starts on day D', async () => {
    const result = await dashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(entityIds(result)).toEqual(['HOST-0000000000000002', 'HOST-0000000000000003', 'HOST-0000000000000004', 'HOST-0000000000000003']);
  });

  it('a bare --to date ends before the next UTC midnight, a date-time --to is exact', async () => {
    expect(entityIds(await dashcd(['events', 'query', '--to', '2026-11-17']))).toEqual(['HOST-0000000000000001']);
    expect(entityIds(await dashcd(['events', 'query', '--to', '2026-11-18T00:00:00Z']))).toEqual(['HOST-0000000000000001', 'HOST-0000000000000002']);
    expect(entityIds(await dashcd(['events', 'query', '--from', '2026-11-18T12:00:00Z', '--to', String(DAY_18 + 20 * HOUR)]))).toEqual([
      'HOST-0000000000000003',
      'HOST-0000000000000004',
      'HOST-0000000000000003',
    ]);
  });

  it('events stats --from D --to D counts the events of day D', async () => {
    const result = await dashcd(['events', 'stats', '--from', '2026-11-18', '--to', '2026-11-18', '--format', 'json']);
    expect(JSON.parse(result.stdout).prod).toMatchObject({ events: 3, byDay: { '2026-11-18': 3 } });
  });

  it('events stats counts versions inside the time range only', async () => {
    const result = await dashcd(['events', 'stats', '--from', '2026-11-18T12:00:00Z', '--to', '2026-11-18']);
    expect(result.stdout).toMatch(/^prod: 2 events \(3 versions\)\n/);
  });

  it('events query --help says a bare --to date covers the whole day', async () => {
    const result = await dashcd(['events', 'query', '--help']);
    expect(result.stdout).toMatch(/a bare date as --to\s+covers that whole day/);
  });
});

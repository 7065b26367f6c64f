import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsQueryCommand } from '../../src/cli/commands/events-query.js';
import { eventsStatsCommand } from '../../src/cli/commands/events-stats.js';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { renderEvent, type FeedEvent } from '../helpers/events-feed-server.js';
import { tempDirPerTest } from '../helpers/scratch.js';

let cwd: string;
tempDirPerTest('dashcd-query-long-line-', (created) => (cwd = created));

const DAY_18 = Date.UTC(2026, 10, 18);
const HOUR = 3_600_000;
/** The line limit, written out: 16 MiB. */
const LIMIT = 16 * 1024 * 1024;

function event(n: number, extra: Record<string, unknown> = {}): FeedEvent {
  const startTime = DAY_18 + n * HOUR;
  return { eventId: `-431421193692892017${n}`, startTime, endTime: startTime + 60_000, eventStatus: 'CLOSED', eventType: 'CUSTOM_INFO', entityId: `HOST-000000000000000${n}`, ...extra };
}

/** Event 3, padded so that its line is exactly `bytes` long. */
function paddedEvent(bytes: number): string {
  const bare = renderEvent(event(3, { pad: '' }));
  return renderEvent(event(3, { pad: 'p'.repeat(bytes - Buffer.byteLength(bare)) }));
}

function dashcd(argv: string[]): Promise<CliResult> {
  return runDashcd(argv, { cwd, commands: [eventsQueryCommand, eventsStatsCommand] });
}

describe('events query over a partition with a line too long to read', () => {
  it('reports the line as file:line with its length and the limit, and prints the events of every other line', async () => {
    const dir = join(cwd, 'events-archive', 'prod', 'date=2026-11-18');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'events.jsonl');
    const atLimit = paddedEvent(LIMIT);
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT);
    // Line 2: one byte past the limit, in pieces as a torn or corrupted append might leave it (no newline until its end).
    const handle = await open(file, 'w');
    await handle.write(`${renderEvent(event(1))}\n`);
    for (let i = 0; i < 16; i++) await handle.write('x'.repeat(1024 * 1024));
    await handle.write(`x\n${renderEvent(event(2))}\n${atLimit}\n`);
    await handle.close();

    const query = await dashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18']);
    expect(query.code).toBe(0);
    expect(query.stderr).toBe(`${file}:2: skipped an unreadable line: line too long (16777217 bytes, at most 16777216)\n`);
    expect(query.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { entityId: string }).entityId)).toEqual([
      'HOST-0000000000000001',
      'HOST-0000000000000002',
      'HOST-0000000000000003',
    ]);

    const stats = await dashcd(['events', 'stats', '--format', 'json']);
    expect(stats.stderr).toBe(query.stderr);
    expect(JSON.parse(stats.stdout).prod).toMatchObject({ events: 3, versions: 3 });
  });

  it('reports a too-long last line without a newline the same way', async () => {
    const dir = join(cwd, 'events-archive', 'prod', 'date=2026-11-18');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'events.jsonl');
    await writeFile(file, `${renderEvent(event(1))}\n${'{'.repeat(LIMIT + 10)}`);
    const query = await dashcd(['events', 'query', '--latest']);
    expect(query.stderr).toBe(`${file}:2: skipped an unreadable line: line too long (16777226 bytes, at most 16777216)\n`);
    expect(query.stdout.trim().split('\n')).toHaveLength(1);
  });
});

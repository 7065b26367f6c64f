import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDashcd, type CliResult } from '../helpers/cli.js';
import { renderEvent, type FeedEvent } from '../helpers/events-feed-server.js';

/**
 * An events archive that is a third party's (copied from elsewhere, or written by a feed we do not trust): its event
 * types, statuses, environment folders and damaged lines hold escape sequences and line breaks. What `events stats`
 * and `events query` print of them on a terminal must drive nothing and start no line of its own.
 */
const DAY = Date.UTC(2026, 10, 18);
const EVIL_TYPE = 'CUSTOM\u001b]0;PWNED\u0007\u001b[2K\u001b[1A\n::error title=Injected::type\u009b2J';
const EVIL_ENV = 'pr\u001b[31mod';
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-hostile-archive-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

async function archive(env: string, lines: readonly string[]): Promise<string> {
  const dir = join(cwd, 'events-archive', env, 'date=2026-11-18');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'events.jsonl');
  await writeFile(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}

function event(n: number, overrides: Partial<FeedEvent> = {}): string {
  return renderEvent({ eventId: `-43142119369289201${n}`, startTime: DAY + n, endTime: DAY + n + 60_000, eventStatus: 'CLOSED', eventType: 'CUSTOM_INFO', entityId: `HOST-${n}`, ...overrides });
}

function expectHarmless(result: CliResult): void {
  for (const output of [result.stdout, result.stderr]) {
    expect(output).not.toMatch(CONTROL_BUT_LF);
    expect(output.split('\n').filter((line) => line.trimStart().startsWith('::'))).toEqual([]);
  }
}

const dashcd = (argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd });

describe('events stats of a hostile archive', () => {
  it('prints an event type and an environment folder without their control characters, its columns aligned', async () => {
    await archive(EVIL_ENV, [event(1, { eventType: EVIL_TYPE }), event(2), event(3)]);
    const result = await dashcd(['events', 'stats']);
    expect(result.code, result.stderr).toBe(0);
    expectHarmless(result);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('pr [31mod: 3 events (3 versions)');
    const shownType = 'CUSTOM ]0;PWNED  [2K [1A ::error title=Injected::type 2J';
    expect(lines).toContain(`    CUSTOM_INFO${' '.repeat(shownType.length - 'CUSTOM_INFO'.length)}  ${'2'.padStart(8)}`);
    expect(lines).toContain(`    ${shownType}  ${'1'.padStart(8)}`);
  });

  it('keeps the real values in --format json', async () => {
    await archive(EVIL_ENV, [event(1, { eventType: EVIL_TYPE }), event(2)]);
    const result = await dashcd(['events', 'stats', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Record<string, { byType: Record<string, number> }>)[EVIL_ENV]?.byType).toEqual({ [EVIL_TYPE]: 1, CUSTOM_INFO: 1 });
  });
});

describe('events stats of event types and statuses named like object members', () => {
  it('counts toString, constructor and __proto__ as names like any other, in the table and in JSON', async () => {
    await archive('prod', [
      event(1, { eventType: 'toString' }),
      // A status the feed's type does not have: as a third party's archive may hold it.
      event(2, { eventType: '__proto__' }).replace('"eventStatus":"CLOSED"', '"eventStatus":"constructor"'),
      event(3).replace('"eventStatus":"CLOSED"', '"eventStatus":"valueOf"'),
      event(4),
    ]);
    const json = await dashcd(['events', 'stats', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const stats = (JSON.parse(json.stdout) as Record<string, { events: number; byType: Record<string, number>; byStatus: Record<string, number> }>)['prod'];
    expect(stats?.events).toBe(4);
    expect(Object.entries(stats?.byType ?? {}).sort()).toEqual([['CUSTOM_INFO', 2], ['__proto__', 1], ['toString', 1]]);
    expect(Object.entries(stats?.byStatus ?? {}).sort()).toEqual([['CLOSED', 2], ['constructor', 1], ['valueOf', 1]]);
    const table = await dashcd(['events', 'stats']);
    expect(table.stdout).not.toContain('native code');
    expect(table.stdout).toMatch(/ {4}__proto__ +1\n/);
    expect(table.stdout).toMatch(/ {4}toString +1\n/);
  });
});

describe('an unreadable archive line', () => {
  // JSON.parse's message quotes the start of the line it could not read.
  const DAMAGED = '\u001b]0;PWNED\u0007\u001b[2K\u001b[1A\r::error title=Injected::line';

  it('events query reports it as FILE:LINE on one harmless line and goes on', async () => {
    const file = await archive(EVIL_ENV, [DAMAGED, event(1)]);
    const result = await dashcd(['events', 'query', '--format', 'table']);
    expect(result.code, result.stderr).toBe(0);
    expectHarmless(result);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    expect(result.stderr).toMatch(new RegExp(`^${file.replace(EVIL_ENV, 'pr [31mod').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: skipped an unreadable line: not JSON: [^\\n]*\\n$`));
  });

  it('events stats reports it the same way', async () => {
    await archive(EVIL_ENV, [DAMAGED, event(1)]);
    const result = await dashcd(['events', 'stats']);
    expect(result.code, result.stderr).toBe(0);
    expectHarmless(result);
    expect(result.stderr).toContain(':1: skipped an unreadable line: not JSON: ');
  });
});

describe('an --env the archive does not have', () => {
  it("names the archive's environment folders without their control characters", async () => {
    await archive(EVIL_ENV, [event(1)]);
    await archive('dev\n::error title=Injected::env', [event(2)]);
    const result = await dashcd(['events', 'query', '--env', 'prod']);
    expect(result.code).toBe(64);
    expectHarmless(result);
    expect(result.stderr).toContain('it has: dev ::error title=Injected::env, pr [31mod');
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsImportCommand } from '../../src/cli/commands/events-import.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runDashcd } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'dashcd-import-cli-'));
  const start = Date.UTC(2026, 10, 18, 12);
  const event = { id: `-4314211936928920170_${start}`, eventId: 1, startTime: start, endTime: start + 60_000, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', eventStatus: 'CLOSED' };
  await writeFile(join(root, 'events.jsonl'), `${JSON.stringify(event)}\n`);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const importEvents = (): ReturnType<typeof runDashcd> => runDashcd(['events', 'import', '--data', 'data', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });

describe('dashcd events import and a data dir owned by a server', () => {
  it('exits 4, as serve and the daemon do for an owned data dir, naming the server; imports once it is stopped', async () => {
    const server = await startTestServer({ dataDir: join(root, 'data'), keepDataDir: true });
    try {
      const refused = await importEvents();
      expect(refused.code).toBe(ExitCode.TargetUnavailable);
      expect(refused.stderr).toContain(`is in use by dashcd pid ${process.pid} serving ${server.baseUrl}: stop that server, run the import`);
      expect(refused.stdout).toBe('');
    } finally {
      await server.close();
    }
    const imported = await importEvents();
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(imported.stdout).toMatch(/: 1 new, 0 replaced, 0 skipped/);
  });

  it('says so in its help', async () => {
    const help = await runDashcd(['events', 'import', '--help'], { cwd: root, commands: [eventsImportCommand] });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('while a dashcd owns the data dir the import refuses, naming it, and exits 4');
  });
});

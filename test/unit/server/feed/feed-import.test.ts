import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsImportCommand } from '../../../../src/cli/commands/events-import.js';
import { ExitCode } from '../../../../src/cli/exit-codes.js';
import { EnvironmentId } from '../../../../src/schema/ids.js';
import { dataDirLayout } from '../../../../src/server/data-dir.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { importEvents } from '../../../../src/server/feed/importer.js';
import { runDashcd } from '../../../helpers/cli.js';
import { startTestServer } from '../../../helpers/server.js';

const T0 = 1_654_148_872_269;
const line = (fields: Record<string, unknown>): string => JSON.stringify(fields);
const base = { eventType: 'CUSTOM_DEPLOYMENT', entityId: 'SERVICE-1', startTime: T0 };

describe('events import', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'dashcd-import-'));
    file = join(root, 'events.jsonl');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('loads lines in order: a later line with the same id replaces the earlier one', async () => {
    await writeFile(file, [
      line({ ...base, id: `-4314211936928920170_${T0}`, eventType: 'ERROR_EVENT', eventStatus: 'OPEN' }),
      line({ ...base, id: `1_${T0 + 1}`, startTime: T0 + 1, endTime: T0 + 2 }),
      '',
      line({ ...base, id: `-4314211936928920170_${T0}`, eventType: 'ERROR_EVENT', eventStatus: 'CLOSED', endTime: T0 + 60_000 }),
    ].join('\n'));
    const dir = join(root, 'events');
    const outcome = await importEvents({ file, eventsDir: dir });
    expect(outcome).toEqual({ lines: 4, created: 2, replaced: 1, badLines: 0, storeSize: 2 });
    const store = await openEventStore({ dir });
    const text = (await store.get(`-4314211936928920170_${T0}`))?.toString();
    expect(text).toContain('"eventId":-4314211936928920170,');
    expect(text).toContain('"eventStatus":"CLOSED"');
    await store.close();
  });

  it('takes the id from the eventId digits as written when a line has no id', async () => {
    await writeFile(file, `{"eventId":-6388042533023614561,"startTime":${T0},"eventType":"CUSTOM_INFO"}\n`);
    const dir = join(root, 'events');
    await importEvents({ file, eventsDir: dir });
    const store = await openEventStore({ dir });
    expect((await store.get(`-6388042533023614561_${T0}`))?.toString()).toContain('"eventId":-6388042533023614561,');
    await store.close();
  });

  it('the command reports bad lines as FILE:LINE, imports the rest and exits 3', async () => {
    await writeFile(file, [
      line({ ...base, id: `1_${T0}` }),
      '{"id": broken',
      line({ ...base, id: `2_${T0 + 5}`, startTime: T0 + 5 }),
      line({ ...base, id: `3_${T0}`, endTime: T0 - 1 }),
    ].join('\n'));
    const result = await runDashcd(['events', 'import', '--data', 'data', '--env', 'prod', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(result.code).toBe(ExitCode.InvalidDesiredState);
    expect(result.stderr).toContain(`${file}:2: not JSON`);
    expect(result.stderr).toContain(`${file}:4: endTime`);
    expect(result.stdout).toContain('2 new, 0 replaced, 2 skipped; the store holds 2 events');
    const store = await openEventStore({ dir: dataDirLayout(join(root, 'data')).eventsDir(EnvironmentId.parse('prod')) });
    expect(store.size).toBe(2);
    await store.close();
    expect(existsSync(join(root, 'data', 'owner.json'))).toBe(false);
  });

  it('refuses to import while a server owns the data dir, naming it', async () => {
    await writeFile(file, line({ ...base, id: `1_${T0}` }));
    const server = await startTestServer({ dataDir: join(root, 'data'), keepDataDir: true });
    try {
      const result = await runDashcd(['events', 'import', '--data', 'data', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
      expect(result.code).toBe(ExitCode.TargetUnavailable);
      expect(result.stderr).toContain(`is in use by dashcd pid ${process.pid} serving ${server.baseUrl}: stop that server`);
    } finally {
      await server.close();
    }
    expect(existsSync(join(root, 'data', 'owner.json'))).toBe(false);
  });

  it('is a usage error without a readable file or with a bad environment id', async () => {
    const missing = await runDashcd(['events', 'import', 'nope.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.stderr).toContain('is not a readable file');
    await writeFile(file, '');
    const badEnv = await runDashcd(['events', 'import', '--env', '../x', 'events.jsonl'], { cwd: root, commands: [eventsImportCommand] });
    expect(badEnv.code).toBe(ExitCode.Usage);
  });
});

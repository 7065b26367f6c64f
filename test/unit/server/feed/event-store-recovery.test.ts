import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../../../src/lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../../../src/lib/fs-layer.js';
import { EVENT_LOG_FILE } from '../../../../src/server/feed/event-log.js';
import { encodeEvent, type EncodedEvent } from '../../../../src/server/feed/event-record.js';
import type { EventStore } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { pageOf } from '../../../helpers/store-page.js';

const T0 = 1_700_000_000_000;

function event(eventId: string, startTime: number, extra: Record<string, unknown> = {}): EncodedEvent {
  const result = encodeEvent({ id: `${eventId}_${startTime}`, startTime, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', ...extra });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

async function ids(store: EventStore): Promise<string[]> {
  const page = await pageOf(store, { filter: { from: 0, to: 2 * T0 }, watermark: store.size, limit: 100, countTotal: false });
  return page.texts.map((text) => (JSON.parse(text.toString('utf8')) as { id: string }).id);
}

describe('event store recovery', () => {
  let dir: string;
  let logFile: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-events-recovery-'));
    logFile = join(dir, EVENT_LOG_FILE);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('cuts off a torn last line, logs it, and appends cleanly after it', async () => {
    const first = await openEventStore({ dir });
    await first.put([event('1', T0), event('2', T0 + 1)]);
    await first.close();
    const whole = (await stat(logFile)).size;
    await appendFile(logFile, `{"id":"3_${T0 + 2}","eventId":3,"startTime":${T0 + 2},"eventTy`);

    const { lines, log } = captureLog();
    const second = await openEventStore({ dir, log });
    expect(second.size).toBe(2);
    expect((await stat(logFile)).size).toBe(whole);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'cut off an incomplete last event line', keptBytes: whole }));
    await second.put([event('4', T0 + 3)]);
    await second.close();

    const third = await openEventStore({ dir });
    expect(await ids(third)).toEqual([`4_${T0 + 3}`, `2_${T0 + 1}`, `1_${T0}`]);
    await third.close();
  });

  it('skips a damaged line in the middle with its line number, and serves the others', async () => {
    const first = await openEventStore({ dir });
    await first.put([event('1', T0)]);
    await first.close();
    await appendFile(logFile, `{"id":"2_${T0 + 1}","startTime":${T0 + 1},"eventType":"CUSTOM_INFO","entityId":"H\n`);
    await appendFile(logFile, `not json at all\n`);
    const { lines, log } = captureLog();
    const reopened = await openEventStore({ dir, log });
    const damaged = lines.filter((line) => line['msg'] === 'skipped a damaged event line').map((line) => line['line']);
    expect(damaged).toEqual([2, 3]);
    await reopened.put([event('3', T0 + 2)]);
    expect(await ids(reopened)).toEqual([`3_${T0 + 2}`, `1_${T0}`]);
    await reopened.close();

    const store = await openEventStore({ dir });
    expect(await ids(store)).toEqual([`3_${T0 + 2}`, `1_${T0}`]);
    await store.close();
  });

  it('removes temp files of interrupted atomic writes and keeps its cursor key', async () => {
    const first = await openEventStore({ dir });
    const key = first.cursorKey;
    await first.close();
    await writeFile(join(dir, `cursor.key${TEMP_MARKER}abc`), 'half');
    const { lines, log } = captureLog();
    const store = await openEventStore({ dir, log });
    expect(store.cursorKey.equals(key)).toBe(true);
    expect(await readdir(dir)).not.toContain(`cursor.key${TEMP_MARKER}abc`);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'removed a temp file left by an interrupted write' }));
    await store.close();
  });

  it('applies records in log order on a restart: the later version of an id wins', async () => {
    const first = await openEventStore({ dir });
    await first.put([event('1', T0, { eventStatus: 'OPEN' })]);
    await first.put([event('1', T0, { eventStatus: 'CLOSED', endTime: T0 + 5 })]);
    await first.close();
    const store = await openEventStore({ dir });
    expect(store.size).toBe(1);
    expect((await store.get(`1_${T0}`))?.toString()).toContain('"eventStatus":"CLOSED"');
    await store.close();
  });

  it('never shows an event whose append failed, and leaves no partial line behind', async () => {
    let failSync = false;
    const flaky: FsLayer = {
      ...nodeFs,
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        return {
          write: (data) => handle.write(data),
          close: () => handle.close(),
          sync: () => (failSync && path === logFile ? Promise.reject(new Error('EIO: simulated')) : handle.sync()),
        };
      },
    };
    const store = await openEventStore({ dir, fs: flaky });
    await store.put([event('1', T0)]);
    const before = await readFile(logFile, 'utf8');
    failSync = true;
    await expect(store.put([event('2', T0 + 1)])).rejects.toMatchObject({ code: 'STORE_IO' });
    expect(store.size).toBe(1);
    expect(await ids(store)).toEqual([`1_${T0}`]);
    expect(await readFile(logFile, 'utf8')).toBe(before);
    failSync = false;
    await store.put([event('3', T0 + 2)]);
    await store.close();
    const reopened = await openEventStore({ dir });
    expect(await ids(reopened)).toEqual([`3_${T0 + 2}`, `1_${T0}`]);
    await reopened.close();
  });

  it('makes a batch durable (fsync) before put resolves', async () => {
    const calls: string[] = [];
    const recording: FsLayer = {
      ...nodeFs,
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        const name = path === logFile ? 'log' : 'other';
        return {
          write: (data) => (calls.push(`write ${name}`), handle.write(data)),
          sync: () => (calls.push(`sync ${name}`), handle.sync()),
          close: () => handle.close(),
        };
      },
    };
    const store = await openEventStore({ dir, fs: recording });
    calls.length = 0;
    await store.put([event('1', T0), event('2', T0 + 1)]);
    expect(calls).toEqual(['write log', 'sync log']);
    await store.close();
  });
});

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../../../src/lib/durable-file.js';
import { DashboardId } from '../../../../src/schema/ids.js';
import { openDashboardStore } from '../../../../src/server/store/dashboard-store.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { openHandlesFs } from '../../../helpers/open-handles-fs.js';

const GOOD = '11111111-1111-4111-8111-111111111111';
const EMPTY = '22222222-2222-4222-8222-222222222222';
const TRUNCATED = '33333333-3333-4333-8333-333333333333';
const INVALID = '44444444-4444-4444-8444-444444444444';
const FOREIGN = '55555555-5555-4555-8555-555555555555';
const HAND_PLACED = '66666666-6666-4666-8666-666666666666';

describe('opening a damaged store', () => {
  let root: string;
  let dir: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'dashcd-recovery-'));
    dir = join(root, 'dashboards');
    await mkdir(dir);
    const whole = JSON.stringify({ id: GOOD, dashboardMetadata: { name: 'good', owner: 'o' }, tiles: [] }, null, 2);
    await writeFile(join(dir, `${GOOD}.json`), whole);
    await writeFile(join(dir, `${EMPTY}.json`), '');
    await writeFile(join(dir, `${TRUNCATED}.json`), whole.slice(0, whole.length / 2));
    await writeFile(join(dir, `${INVALID}.json`), JSON.stringify({ dashboardMetadata: { name: 1 }, tiles: {} }));
    await writeFile(join(dir, `${FOREIGN}.json`), whole);
    await writeFile(join(dir, `${GOOD}.json${TEMP_MARKER}abc123`), '{"half');
    await writeFile(join(dir, 'README.txt'), 'operator notes');
    await writeFile(join(dir, `${HAND_PLACED}.json`), JSON.stringify({ dashboardMetadata: { name: 'by hand', owner: 'o' }, tiles: [] }));
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('serves only whole dashboards, sets the damaged ones aside with a log line each, and removes temp files', async () => {
    const { lines, log } = captureLog();
    const store = await openDashboardStore({ dir, log });
    expect(store.size).toBe(2);
    expect(store.get(DashboardId.parse(GOOD))?.name).toBe('good');
    expect(store.get(DashboardId.parse(HAND_PLACED))).toMatchObject({ name: 'by hand', version: 1 });
    expect(JSON.parse(store.get(DashboardId.parse(HAND_PLACED))!.served.bytes().toString('utf8'))).toMatchObject({ id: HAND_PLACED });
    for (const id of [EMPTY, TRUNCATED, INVALID, FOREIGN]) expect(store.get(DashboardId.parse(id))).toBeUndefined();

    expect((await readdir(dir)).sort()).toEqual([`${GOOD}.json`, `${HAND_PLACED}.json`, 'README.txt', 'damaged'].sort());
    expect(lines.some((line) => line['msg'] === 'ignored a file that is not named <dashboard-id>.json')).toBe(true);
    const damaged = await readdir(join(dir, 'damaged'));
    expect(damaged.map((name) => name.slice(0, 36)).sort()).toEqual([EMPTY, TRUNCATED, INVALID, FOREIGN].sort());
    const setAside = lines.filter((line) => line['msg'] === 'damaged dashboard file set aside, not served');
    expect(setAside.map((line) => String(line['file']).slice(-41, -5)).sort()).toEqual(
      [EMPTY, TRUNCATED, INVALID, FOREIGN].sort(),
    );
    expect(lines.some((line) => line['msg'] === 'removed a temp file left by an interrupted write')).toBe(true);
    await store.close();
  });

  it('fails whole when a damaged file cannot be set aside (damaged/ is a file), leaving no journal descriptor open', async () => {
    await writeFile(join(dir, 'damaged'), 'not a folder');
    const handles = openHandlesFs();
    await expect(openDashboardStore({ dir, log: captureLog().log, fs: handles.fs })).rejects.toThrow();
    expect(handles.opened()).toBeGreaterThan(0);
    expect(handles.unclosed()).toEqual([]);
  });

  it('keeps the damaged bytes intact for inspection and starts cleanly the next time', async () => {
    await (await openDashboardStore({ dir, log: captureLog().log })).close();
    const damaged = await readdir(join(dir, 'damaged'));
    const empty = damaged.find((name) => name.startsWith(EMPTY));
    expect(await readFile(join(dir, 'damaged', empty!), 'utf8')).toBe('');
    const { lines, log } = captureLog();
    const again = await openDashboardStore({ dir, log });
    expect(again.size).toBe(2);
    expect(lines.filter((line) => line['level'] === 50)).toEqual([]);
    await again.close();
  });
});

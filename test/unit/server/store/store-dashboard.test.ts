import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/lib/logger.js';
import { DashboardId } from '../../../../src/schema/ids.js';
import { openDashboardStore, type DashboardStore } from '../../../../src/server/store/dashboard-store.js';
import { prepareDashboard } from '../../../../src/server/store/dashboard-document.js';

const body = (name: string, extra: Record<string, unknown> = {}) => ({
  dashboardMetadata: { name, owner: 'me', ...extra },
  tiles: [],
});
const ID = DashboardId.parse('11111111-2222-4333-8444-555555555555');

describe('dashboard store', () => {
  let dir: string;
  let store: DashboardStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-store-'));
    store = await openDashboardStore({ dir: join(dir, 'dashboards'), log: silentLogger() });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the caller object with server metadata and id first, in a readable file named by id', async () => {
    const sent = { tiles: [], dashboardMetadata: { owner: 'me', name: 'A', popularity: 3 }, extra: { z: 1, a: 2 } };
    const { id, name } = await store.create(prepareDashboard(sent));
    expect(name).toBe('A');
    const served = JSON.parse(store.get(id)!.served.bytes().toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(served)).toEqual(['metadata', 'id', 'tiles', 'dashboardMetadata', 'extra']);
    expect(served).toMatchObject({ id, ...sent });
    await store.flushed();
    const file = await readFile(join(dir, 'dashboards', `${id}.json`), 'utf8');
    expect(file).toContain('\n  "id": ');
    expect(JSON.parse(file)).toEqual(served);
  });

  it('keeps about 2 MB of GET bytes raw by default (the daemon budget), the rest deflated and still served', async () => {
    // 200 dashboards of ~20 KB: 4 MB raw, twice the default budget.
    const markdown = 'm'.repeat(20_000);
    const ids: DashboardId[] = [];
    for (let i = 0; i < 200; i++) ids.push((await store.create(prepareDashboard(body(`D${i}`, { markdown })))).id);
    expect(store.hotBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(store.hotBytes).toBeGreaterThan(1.9 * 1024 * 1024);
    const first = JSON.parse(store.get(ids[0] as DashboardId)!.served.bytes().toString('utf8')) as { dashboardMetadata: { name: string; markdown: string } };
    expect(first.dashboardMetadata).toEqual({ name: 'D0', owner: 'me', markdown });
  });

  it('writes text beyond ASCII to the file byte for byte, as GET serves it', async () => {
    const name = 'Übersicht — 日本 🚀';
    const { id } = await store.create(prepareDashboard(body(name)));
    await store.flushed();
    const file = await readFile(join(dir, 'dashboards', `${id}.json`));
    const parsed = JSON.parse(file.toString('utf8')) as { dashboardMetadata: { name: string } };
    expect(parsed.dashboardMetadata.name).toBe(name);
    expect(parsed).toEqual(JSON.parse(store.get(id)!.served.bytes().toString('utf8')));
  });

  it('keeps GET bodies uncompressed within its hotBytes budget, all of them when the budget allows', async () => {
    const roomy = await openDashboardStore({ dir: join(dir, 'roomy'), log: silentLogger(), hotBytes: 1024 * 1024 });
    const tight = await openDashboardStore({ dir: join(dir, 'tight'), log: silentLogger(), hotBytes: 1 });
    try {
      const sizes: number[] = [];
      for (const name of ['A', 'B', 'C']) {
        const { id } = await roomy.create(prepareDashboard(body(name, { markdown: 'x'.repeat(2000) })));
        sizes.push(roomy.get(id)!.served.bytes().length);
        await tight.create(prepareDashboard(body(name, { markdown: 'x'.repeat(2000) })));
      }
      expect(roomy.hotBytes).toBe(sizes.reduce((a, b) => a + b, 0));
      // Over budget, the most recent body stays raw (a store never inflates what it has just written).
      expect(tight.hotBytes).toBe(sizes[2]);
      expect(tight.list().map((stub) => JSON.parse(tight.get(DashboardId.parse(stub.id))!.served.bytes().toString('utf8')).dashboardMetadata.name).sort()).toEqual(['A', 'B', 'C']);
    } finally {
      await roomy.close();
      await tight.close();
    }
  });

  it('replaces client metadata and id, and grows the version on every write', async () => {
    const first = await store.put(ID, prepareDashboard({ ...body('v1'), id: '', metadata: { configurationVersions: [99] } }));
    expect(first.created).toBe(true);
    const second = await store.put(ID, prepareDashboard(body('v2')));
    expect(second.created).toBe(false);
    const served = JSON.parse(store.get(ID)!.served.bytes().toString('utf8')) as { metadata: unknown; id: string };
    expect(served.id).toBe(ID);
    expect(served.metadata).toEqual({
      clusterVersion: 'dashcd-0.1.0',
      configurationVersions: [2],
      currentConfigurationVersions: ['2'],
    });
  });

  it('gives 50 parallel creates 50 distinct ids, all on disk', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(prepareDashboard(body(`d${i}`)))));
    expect(new Set(results.map((r) => r.id)).size).toBe(50);
    await store.flushed();
    expect((await readdir(join(dir, 'dashboards'))).filter((f) => f.endsWith('.json'))).toHaveLength(50);
  });

  it('leaves one whole version after parallel PUTs to one id, and the version counts every write', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put(ID, prepareDashboard(body(`v${i}`, { tags: [`t${i}`] })))));
    await store.flushed();
    const onDisk = JSON.parse(await readFile(join(dir, 'dashboards', `${ID}.json`), 'utf8')) as {
      dashboardMetadata: { name: string; tags: string[] };
      metadata: { configurationVersions: number[] };
    };
    expect(onDisk.dashboardMetadata.tags).toEqual([`t${onDisk.dashboardMetadata.name.slice(1)}`]);
    expect(onDisk.metadata.configurationVersions).toEqual([20]);
    expect(store.get(ID)!.name).toBe(onDisk.dashboardMetadata.name);
  });

  it('lists stubs sorted by name, filtered by owner and by all of the given tags', async () => {
    await store.create(prepareDashboard({ dashboardMetadata: { name: 'b', owner: 'x', tags: ['p', 'q'] }, tiles: [] }));
    await store.create(prepareDashboard({ dashboardMetadata: { name: 'a', owner: 'y', tags: ['p'] }, tiles: [] }));
    expect(store.list().map((s) => s.name)).toEqual(['a', 'b']);
    expect(store.list({ owner: 'x' }).map((s) => s.name)).toEqual(['b']);
    expect(store.list({ tags: ['p'] }).map((s) => s.name)).toEqual(['a', 'b']);
    expect(store.list({ tags: ['p', 'q'] }).map((s) => s.name)).toEqual(['b']);
    expect(store.list({ tags: ['p', 'z'] })).toEqual([]);
  });

  it('removes a dashboard and its file, and reports false for an unknown id', async () => {
    await store.put(ID, prepareDashboard(body('gone')));
    expect(await store.remove(ID)).toBe(true);
    expect(store.get(ID)).toBeUndefined();
    await store.flushed();
    expect(await readdir(join(dir, 'dashboards'))).toEqual([]);
    expect(await store.remove(ID)).toBe(false);
  });

  it('reloads what it wrote, with the version, after a reopen', async () => {
    await store.put(ID, prepareDashboard(body('one')));
    await store.put(ID, prepareDashboard(body('two')));
    await store.close();
    store = await openDashboardStore({ dir: join(dir, 'dashboards'), log: silentLogger() });
    expect(store.get(ID)).toMatchObject({ name: 'two', version: 2 });
  });

  it('refuses writes after close but lets writes already started finish', async () => {
    const pending = store.put(ID, prepareDashboard(body('late')));
    await store.close();
    await expect(pending).resolves.toMatchObject({ created: true });
    await expect(store.put(ID, prepareDashboard(body('after')))).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('retries a generated id that is already taken', async () => {
    await store.put(ID, prepareDashboard(body('taken')));
    const ids = [ID, '22222222-2222-4333-8444-555555555555'];
    const other = await openDashboardStore({
      dir: join(dir, 'dashboards'),
      log: silentLogger(),
      randomUUID: () => ids.shift() ?? 'never',
    });
    expect((await other.create(prepareDashboard(body('new')))).id).toBe('22222222-2222-4333-8444-555555555555');
    await other.close();
  });
});

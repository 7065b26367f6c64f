import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToken, dashboardYaml, metricValue, waitFor } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { api } from '../helpers/server.js';

const COUNT = 200;

const scope = daemonScopePerTest();

const fileName = (i: number): string => `dashboards/team-${String(i).padStart(3, '0')}.yaml`;

interface Live {
  dashboardMetadata: { name: string };
  metadata: { configurationVersions: number[] };
}

describe('dashcd daemon under a burst of changes', () => {
  it(`applies ${COUNT} files changed at once, each exactly once`, async () => {
    const files = Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [fileName(i), dashboardYaml(`Team ${i}`)]));
    const project = await scope.createProject(files);
    const root = project.root;
    const d = await scope.startDaemon(['--resync', '60s', '--poll', '60s'], { cwd: root });
    expect(metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'create' })).toBe(COUNT);
    const token = await createToken(root, '.dashcd', 'ReadConfig');
    const ids = Object.values((await d.status()).files).map((f) => f.id ?? '');
    expect(ids).toHaveLength(COUNT);

    // All at once, as a `git pull` does: no await between the writes.
    await Promise.all(Array.from({ length: COUNT }, (_, i) => writeFile(join(root, fileName(i)), dashboardYaml(`Team ${i}`, 'v2'))));

    await waitFor(async () => metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'update' }) >= COUNT, { what: `${COUNT} updates` });
    // Quiet: the queue has nothing left (two status reads a debounce apart agree and show no pending change).
    await waitFor(async () => {
      const before = (await d.status()).lastReconcile?.at;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return (await d.status()).lastReconcile?.at === before;
    }, { what: 'the daemon to go quiet' });
    expect(metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'update' })).toBe(COUNT);
    const status = await d.status();
    // A file whose save produced two watcher events may be looked at again ('unchanged'); it is never written twice.
    const results = Object.values(status.files).map((f) => f.result);
    expect(results).toHaveLength(COUNT);
    expect(results.filter((r) => r !== 'updated' && r !== 'unchanged')).toEqual([]);
    expect(status.invalid).toEqual([]);

    const live = await Promise.all(ids.map(async (id) => (await api(`${d.url}/e/local/api/config/v1/dashboards/${id}`, { token })).json as Live));
    expect(live.filter((l) => l.dashboardMetadata.name.endsWith(' v2'))).toHaveLength(COUNT);
    // Version 1 was the create, version 2 the one update.
    expect(new Set(live.map((l) => l.metadata.configurationVersions[0]))).toEqual(new Set([2]));
    // Concurrent writes, reads and the poller share the client's abort signal: Node must not warn about its listeners.
    expect(d.stderr()).not.toMatch(/MaxListenersExceededWarning/);
  }, 180_000);
});

import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readyBanner } from '../../src/cli/commands/daemon.js';
import { runDashcdChild } from '../helpers/cli.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { waitFor } from '../helpers/daemon.js';
import { api } from '../helpers/server.js';

const scope = daemonScopePerTest();
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The repository's own sample: dashcd.yaml (dev, staging, prod) and dashboards/, as `npm start` runs it. */
async function sampleFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = { 'dashcd.yaml': await readFile(join(REPO, 'dashcd.yaml'), 'utf8') };
  for (const entry of await readdir(join(REPO, 'dashboards'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(REPO, path)] = await readFile(path, 'utf8');
  }
  return files;
}

describe('npm start: the sample project in three environments', () => {
  it('runs without a MaxListenersExceededWarning, and the create-a-token advice gives a token the advertised API accepts', async () => {
    const project = await scope.createProject(await sampleFiles());
    // `npm start` is `dashcd daemon --simulate-events` in the repository; the first passes and pulls of all three run here.
    const d = await scope.startDaemon(['--simulate-events'], { cwd: project.root });
    await waitFor(async () => (await d.status()).environments?.every((e) => e.poller.eventsArchived > 0) === true, { timeoutMs: 30_000, what: 'each environment to archive events' });
    expect(d.stderr()).not.toMatch(/MaxListenersExceededWarning|EventTarget memory leak/);
    // Every sample file is live in every environment: the classic dashboards and the platform dashboard and notebook.
    const synced = await waitFor(async () => {
      const environments = (await d.status()).environments ?? [];
      return environments.every((e) => e.kinds.document.files === 2 && e.kinds.dashboard.files === 3 && e.lastReconcile?.ok === true) ? environments : undefined;
    }, { timeoutMs: 30_000, what: 'the sample files reconciled in each environment' });
    expect(synced.map((e) => e.name)).toEqual(['dev', 'staging', 'prod']);

    // A saved edit, as the Quick start suggests: all three environments reconcile it, and still no leak warning (every
    // environment's clients, old and new, watch the daemon's one stop signal).
    await project.write('dashboards/platform/hosts.yaml', (await readFile(join(project.root, 'dashboards/platform/hosts.yaml'), 'utf8')).replace('  - name: Hosts\n', '  - name: Hosts (renamed)\n'));
    await waitFor(() => d.stdout().split('\n').filter((line) => line.includes('"dashboard updated"')).length >= 3 || undefined, { timeoutMs: 30_000, what: 'the edit applied in each environment' });
    expect(d.stderr()).not.toMatch(/MaxListenersExceededWarning|EventTarget memory leak/);

    // Not a terminal: the log line names the API and the command that makes a lasting token for it. Followed literally.
    const ready = d.stdout().split('\n').filter((line) => line.includes('embedded API ready')).map((line) => JSON.parse(line) as Record<string, string>)[0];
    expect(ready?.api).toBe(`${d.url}/e/dev`);
    // Where the console, status and metrics are, as the banner says at a terminal.
    expect([ready?.['console'], ready?.['status'], ready?.['metrics']]).toEqual([`${d.url}/ui`, `${d.url}/status`, `${d.url}/metrics`]);
    expect((await fetch(ready?.['console'] ?? '')).status).toBe(200);
    const created = await runDashcdChild((ready?.['createToken'] ?? '').split(' ').slice(1), { cwd: project.root });
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim().split('\n').pop() ?? '';
    expect((await api(`${ready?.['api'] ?? ''}/api/config/v1/dashboards`, { token })).status).toBe(200);

    // The terminal banner's advice names the same environment as its curl.
    const banner = readyBanner({ statusUrl: d.url, target: 'dev', api: { url: d.url, envUrl: `${d.url}/e/dev`, token: 'run-token' } });
    const advice = /dashcd token create[^)]*/.exec(banner)?.[0] ?? '';
    const lasting = await runDashcdChild([...advice.split(' ').slice(1), '--data', '.dashcd'], { cwd: project.root });
    expect(lasting.code, lasting.stderr).toBe(0);
    const curl = /curl -s -H "Authorization: Api-Token [^"]+" (\S+)/.exec(banner)?.[1] ?? '';
    expect((await api(curl, { token: lasting.stdout.trim().split('\n').pop() ?? '' })).status).toBe(200);

    // The banner's console link opens the console, listing the sample's environments.
    const consoleUrl = /Console: +(\S+)/.exec(banner)?.[1] ?? '';
    const page = await fetch(consoleUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/dev[\s\S]*staging[\s\S]*prod/);
  });
});

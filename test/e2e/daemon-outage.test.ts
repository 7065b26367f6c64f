import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, startDashcdChild, unusedPort, type DashcdChild, type Project } from '../helpers/cli.js';
import { createToken, dashboardYaml, expectConsistentArchive, startDaemon, TOKEN_LIKE, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { api } from '../helpers/server.js';

let project: Project | undefined;
let daemon: DaemonChild | undefined;
let target: DashcdChild | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await daemon?.stop('SIGKILL');
  await target?.stop();
  await project?.cleanup();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  project = daemon = target = dataDir = undefined;
});

interface Target {
  url: string;
  token: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  push(name: string): Promise<string>;
  feedIds(): Promise<string[]>;
}

/** `dashcd serve` in a child process on a fixed port and data dir, so it can be stopped and started again. */
async function serveTarget(cwd: string): Promise<Target> {
  const dir = (dataDir = await mkdtemp(join(tmpdir(), 'dashcd-target-')));
  const port = await unusedPort();
  const url = `http://127.0.0.1:${port}/e/local`;
  const token = await createToken(cwd, dir);
  const events = `${url}/api/v1/events`;
  const self: Target = {
    url,
    token,
    async start() {
      target = await startDashcdChild(['serve', '--port', String(port), '--data', dir], { cwd, ready: /dashcd serving/ });
    },
    async stop() {
      expect(await target?.stop()).toBe(0);
      target = undefined;
    },
    async push(name) {
      const response = await api(events, { method: 'POST', token, body: { eventType: 'CUSTOM_DEPLOYMENT', source: 'test', deploymentName: name, attachRules: { entityIds: ['SERVICE-1'] } } });
      expect(response.status, response.text).toBe(200);
      return (response.json as { storedIds: string[] }).storedIds[0] ?? '';
    },
    async feedIds() {
      const page = (await api(`${events}?relativeTime=hour`, { token })).json as { events: { id: string }[]; nextCursor: string | null };
      expect(page.nextCursor).toBeNull();
      return page.events.map((e) => e.id);
    },
  };
  await self.start();
  return self;
}

/** Events stored while no server runs, as `dashcd events import` does: they appear when the target is back. */
async function importWhileDown(cwd: string, dir: string, count: number): Promise<string[]> {
  const now = Date.now();
  const lines = Array.from({ length: count }, (_, i) => ({
    id: `${900_000 + i}_${now + i}`,
    eventId: 900_000 + i,
    startTime: now + i,
    endTime: now + i,
    eventType: 'CUSTOM_INFO',
    entityId: 'HOST-9',
    eventStatus: 'CLOSED',
  }));
  const file = join(cwd, 'outage-events.jsonl');
  await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  // In this process (the real command, as main.ts runs it): the import is set-up, the daemon is under test.
  const result = await runDashcd(['events', 'import', '--data', dir, file], { cwd });
  expect(result.code, result.stderr).toBe(0);
  return lines.map((l) => l.id);
}

describe('dashcd daemon when its target goes away', () => {
  it('keeps running through a target outage, then converges and archives every event without a gap', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web'), 'dashboards/db.yaml': dashboardYaml('DB') });
    const root = project.root;
    const t = await serveTarget(root);
    const d = (daemon = await startDaemon(['--target', t.url, '--poll', '200ms', '--resync', '1s', '--archive', 'archive'], {
      cwd: root,
      env: { DT_API_TOKEN: t.token, DASHCD_RETRY_DEADLINE: '1s' },
    }));
    const webId = (await d.status()).files['dashboards/web.yaml']?.id ?? '';
    const liveName = async (): Promise<string | undefined> =>
      ((await api(`${t.url}/api/config/v1/dashboards/${webId}`, { token: t.token })).json as { dashboardMetadata?: { name: string } } | undefined)?.dashboardMetadata?.name;
    expect(await liveName()).toBe('Web v1');

    const pushed = [await t.push('before-1'), await t.push('before-2')];
    await waitFor(async () => (await d.status()).poller.eventsArchived >= 2, { what: 'the first events archived' });
    pushed.push(await t.push('just-before-the-outage'));
    await t.stop();

    await project.write('dashboards/web.yaml', dashboardYaml('Web', 'v2'));
    await waitFor(async () => (await d.status()).lastReconcile?.ok === false, { what: 'a reconcile pass to fail against the stopped target' });
    pushed.push(...(await importWhileDown(root, dataDir ?? '', 3)));
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);

    await t.start();
    pushed.push(await t.push('after-1'));
    await waitFor(async () => (await liveName()) === 'Web v2', { what: 'the edit made during the outage to go live' });
    const inFeed = await t.feedIds();
    expect(new Set(inFeed)).toEqual(new Set(pushed));
    const archiveDir = join(root, 'archive');
    const archived = await waitFor(async () => {
      const ids = await expectConsistentArchive(archiveDir, 'local');
      return inFeed.every((id) => ids.has(id)) ? ids : undefined;
    }, { what: 'every event of the feed in the archive' });
    expect([...archived].sort()).toEqual([...inFeed].sort());
    await waitFor(async () => (await d.status()).lastReconcile?.ok === true, { what: 'a successful pass after the outage' });

    expect(d.process.exitCode).toBeNull();
    expect((await d.stop()).code).toBe(0);
    await expectConsistentArchive(archiveDir, 'local');
    expect(d.stdout()).toContain('retrying request');
    expect(d.stdout()).not.toContain(t.token);
    expect(d.stdout() + d.stderr()).not.toMatch(TOKEN_LIKE);
  }, 180_000);
});

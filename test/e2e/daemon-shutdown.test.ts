import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/logger.js';
import { startServer } from '../../src/server/create-server.js';
import { createProject, runDashcdChild, type Project } from '../helpers/cli.js';
import { dashboardYaml, freePort, startDaemon, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';

let project: Project | undefined;
let daemon: DaemonChild | undefined;
let fault: FaultServer | undefined;
afterEach(async () => {
  await daemon?.stop('SIGKILL');
  await fault?.close();
  await project?.cleanup();
  project = daemon = fault = undefined;
});

describe('dashcd daemon shutdown and start-up failures', () => {
  it('exits 0 within seconds on SIGTERM while a pass keeps retrying against a failing target', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    fault = await startFaultServer({ fallback: { status: 503, body: { error: { code: 503, message: 'maintenance' } } } });
    const d = (daemon = await startDaemon(['--target', `${fault.url}/e/prod`, '--poll', '200ms', '--resync', '60s'], {
      cwd: project.root,
      env: { DT_API_TOKEN: 'dt0c01.AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' },
      until: 'listening',
    }));
    // The default retry policy would keep one request going for 60 s; shutdown must not wait for it.
    await waitFor(() => (fault?.requests.filter((r) => r.path.startsWith('/e/prod/api/config')).length ?? 0) >= 3, { what: 'the pass to be retrying' });
    expect((await d.status()).lastReconcile).toBeNull();

    const stopped = await d.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
    expect(d.stdout()).toContain('"daemon stopped"');
    expect(d.stdout()).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAA');
  });

  it('refuses a --listen address in use with exit 1 and a message, not a stack trace', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const result = await runDashcdChild(['daemon', '--listen', `127.0.0.1:${port}`], { cwd: project.root });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`dashcd daemon: cannot listen on 127.0.0.1:${port} (EADDRINUSE) — choose another --listen\n`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // Under `npm start` (the README's first command) it says how a flag gets through npm.
      const viaNpm = await runDashcdChild(['daemon', '--listen', `127.0.0.1:${port}`], { cwd: project.root, env: { npm_lifecycle_event: 'start' } });
      expect(viaNpm.stderr).toContain(`cannot listen on 127.0.0.1:${port} (EADDRINUSE) — choose another --listen (npm start -- --listen 127.0.0.1:8081)`);
      // Refused before the embedded API's data dir was made: a failed start leaves nothing to clean up.
      expect(existsSync(join(project.root, '.dashcd'))).toBe(false);
      // A zoned address: its URL is one no client takes (exit 64, as any flag refused).
      const zoned = await runDashcdChild(['daemon', '--listen', '[fe80::1%lo]:0'], { cwd: project.root });
      expect(zoned.code).toBe(64);
      expect(zoned.stderr).toContain('--listen fe80::1%lo: an address with a zone (%…) cannot be reached by URL');
      expect(existsSync(join(project.root, '.dashcd'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('refuses a data dir a serve owns with exit 4 naming it, as every command does (run.ts maps it, not the daemon itself)', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const owner = await startServer({ dataDir: join(project.root, '.dashcd'), log: silentLogger(), port: 0 });
    try {
      const result = await runDashcdChild(['daemon', '--listen', '127.0.0.1:0'], { cwd: project.root });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain(`dashcd daemon: data dir ${join(project.root, '.dashcd')} is in use by dashcd pid ${process.pid} serving ${owner.url}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await owner.close();
    }
  });

  it('refuses a --dir that does not exist with exit 3, as validate and plan do (it served, said ok, and did nothing)', async () => {
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const result = await runDashcdChild(['daemon', '--dir', 'nodir', '--listen', '127.0.0.1:0'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`dashcd daemon: dashboards folder not found: ${join(project.root, 'nodir')} (give --dir the folder of the dashboard files)\n`);
  });
});

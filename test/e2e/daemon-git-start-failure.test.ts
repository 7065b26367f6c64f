import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPOSITORY_ENVIRONMENTS } from '../../src/daemon/daemon-repo.js';
import { MAIN_JS, unusedPort } from '../helpers/cli.js';
import { dashboardYaml, waitFor } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, sourceStatus } from '../helpers/git-scope.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
});

/** dashcd.yaml declaring `count` embedded environments e0, e1, … */
function environmentsYaml(count: number): string {
  return `environments:\n${Array.from({ length: count }, (_, i) => `  e${i}: {}\n`).join('')}`;
}

/** `dashcd daemon …` in `cwd`, its logs at info; resolves with its exit code once it has exited of itself. */
function daemonChild(args: readonly string[], cwd: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const env = { PATH: process.env.PATH ?? '', HOME: cwd, DASHCD_LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, [MAIN_JS, 'daemon', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

// Each test follows a repository with a daemon: generous on a loaded 2-core machine.
describe('dashcd daemon --repo starting its environments', { timeout: 120_000 }, () => {
  it('a --listen port in use is refused before the repository is fetched into the data dir: nothing is left behind', async () => {
    const { remote, url, cwd } = await fixture();
    await remote.commit({ 'dashboards/hosts.yaml': dashboardYaml('Hosts') }, 'one');
    await remote.push();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const daemon = daemonChild(['--repo', url, '--data', 'data', '--listen', `127.0.0.1:${port}`], cwd);
      expect(await daemon.exited, daemon.output()).toBe(1);
      expect(daemon.output()).toContain(`cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      expect(existsSync(join(cwd, 'data'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('a start that fails at a later environment stops the loops, listener and stores it had opened, and exits with the error', async () => {
    const { remote, url, cwd } = await fixture();
    await remote.commit({ 'dashcd.yaml': environmentsYaml(6), 'dashboards/hosts.yaml': dashboardYaml('Hosts') }, 'six environments');
    await remote.push();
    // A file where e3's store folder goes: e0, e1 and e2 are open, with their loops and the listener, when e3 fails.
    await mkdir(join(cwd, 'data', 'env'), { recursive: true });
    await writeFile(join(cwd, 'data', 'env', 'e3'), 'in the way\n');

    // --resync 1s: the loops already started would reconcile every second in a daemon left half-started.
    const port = await unusedPort();
    const daemon = daemonChild(['--repo', url, '--fetch', '1h', '--resync', '1s', '--poll', '1h', '--data', 'data', '--listen', `127.0.0.1:${port}`], cwd);
    const code = await waitFor(async () => (daemon.child.exitCode !== null || daemon.child.signalCode !== null ? { code: await daemon.exited } : undefined), {
      timeoutMs: 45_000,
      what: 'the daemon to exit after its failed start',
    });

    expect(code.code, daemon.output()).toBe(1);
    expect(daemon.output()).toContain('dashcd API listening');
    expect(daemon.output()).toMatch(/"loopsStarted":3,.*"msg":"start-up failed: stopping what had started"/);
    expect(daemon.output()).toMatch(/dashcd daemon: cannot create the folder \S*e3: file already exists \(EEXIST\)/);
    // Its stores were closed as at shutdown: the data dir is no longer owned, and every opened environment is on disk.
    expect(existsSync(join(cwd, 'data', 'owner.json'))).toBe(false);
    expect((await readdir(join(cwd, 'data', 'env'))).sort()).toEqual(['e0', 'e1', 'e2', 'e3']);
  });

  it(`refuses a commit declaring more than ${DEFAULT_REPOSITORY_ENVIRONMENTS} environments (the default --max-environments): none of them is started, and /status says why`, async () => {
    const { remote, url, cwd } = await fixture();
    const commit = await remote.commit({ 'dashcd.yaml': environmentsYaml(DEFAULT_REPOSITORY_ENVIRONMENTS + 1), 'dashboards/hosts.yaml': dashboardYaml('Hosts') }, 'too many environments');
    await remote.push();

    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h', '--data', 'data'], { cwd, timeoutMs: 60_000, until: 'listening' });
    const refused = await waitFor(async () => ((await sourceStatus(d))?.pending?.commit === commit ? sourceStatus(d) : undefined), { what: 'the commit refused' });
    expect(refused).toMatchObject({
      live: null,
      pending: { refused: [`dashcd.yaml declares ${DEFAULT_REPOSITORY_ENVIRONMENTS + 1} environments; this daemon following a repository starts at most ${DEFAULT_REPOSITORY_ENVIRONMENTS} (its operator's --max-environments)`] },
      stale: true,
    });
    expect(d.stdout()).toContain('none of its environments is started');
    expect(existsSync(join(cwd, 'data', 'env', 'e0'))).toBe(false);
  });

  it("starts none of the environments of a commit refused for its ownership tag, as of one refused for its targets", async () => {
    const { remote, url, cwd } = await fixture();
    const commit = await remote.commit({ 'dashcd.yaml': 'ownershipTag: team-x\nenvironments:\n  dev:\n', 'dashboards/hosts.yaml': dashboardYaml('Hosts') }, 'own team-x');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h', '--data', 'data'], { cwd, timeoutMs: 60_000, until: 'listening' });
    const refused = await waitFor(async () => ((await sourceStatus(d))?.pending?.commit === commit ? sourceStatus(d) : undefined), { what: 'the commit refused' });
    expect(refused?.pending?.refused[0]).toMatch(/^dashcd\.yaml's ownershipTag is 'team-x', not the operator's 'managed-by:dashcd'/);
    expect(d.stdout()).toContain('none of its environments is started');
    expect(existsSync(join(cwd, 'data', 'env', 'dev'))).toBe(false);
  });

  it('starts on a commit that cannot be checked out (a name over 255 bytes in the dashboards), and /status says why (was: exit 64, and no start until the commit was reverted)', async () => {
    const { remote, url, cwd } = await fixture();
    await remote.commit({ 'dashboards/hosts.yaml': dashboardYaml('Hosts') }, 'one');
    await remote.commitIndexed({ [`dashboards/${'n'.repeat(300)}.yaml`]: dashboardYaml('Long') }, 'a name no file system takes');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h', '--data', 'data'], { cwd, timeoutMs: 60_000, until: 'listening' });
    const failed = await waitFor(async () => ((await sourceStatus(d))?.lastFetch?.ok === false ? sourceStatus(d) : undefined), { what: 'the fetch to fail on the commit' });
    expect(failed?.lastFetch?.error).toMatch(/cannot be checked out: the commit holds a file name longer than 255 bytes/);
  });
});

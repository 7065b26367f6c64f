import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvironmentId } from '../../../src/schema/ids.js';
import {
  DataDirLockedError,
  acquireOwnership,
  dataDirLayout,
  listEnvironments,
  readOwner,
} from '../../../src/server/data-dir.js';
import { parseProcStat, processStatus } from '../../../src/server/process-liveness.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

const execFileAsync = promisify(execFile);
let root: string;
tempDirPerTest('dashcd-data-', (created) => (root = created));

/** The pid of a process that has exited (and been reaped), so nothing runs under it. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

/**
 * A process that has exited but is not reaped: `sh` starts it in the background and then becomes `sleep`, which never
 * waits for children. Resolves once /proc shows it as a zombie, with its pid, the identity it had while it ran, and
 * the parent to kill afterwards (init then reaps the zombie).
 */
async function zombie(): Promise<{ pid: number; identity: string; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
  const bootId = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
  const identity = `${bootId}:${parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'))?.startTicks}`;
  for (let i = 0; i < 100 && !parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'))?.exited; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'))).toMatchObject({ state: 'Z', exited: true });
  return { pid, identity, parent };
}

/** The identity /proc gives a live process, as dashcd records its own in owner.json. */
async function identityOf(pid: number): Promise<string> {
  const identity = (await processStatus(pid))?.identity;
  if (identity === undefined) throw new Error(`no identity for pid ${pid}`);
  return identity;
}

async function writeOwner(content: Record<string, unknown>): Promise<void> {
  await writeFile(join(root, 'owner.json'), JSON.stringify(content), { mode: 0o600 });
}

describe('data dir layout', () => {
  it('puts every file where the shared contract says', () => {
    const layout = dataDirLayout('/srv/data');
    const staging = EnvironmentId.parse('staging');
    expect(layout.ownerFile).toBe('/srv/data/owner.json');
    expect(layout.installerFile).toBe('/srv/data/installer/agent-unix-default.sh');
    expect(layout.envDir(staging)).toBe('/srv/data/env/staging');
    expect(layout.dashboardsDir(staging)).toBe('/srv/data/env/staging/dashboards');
    expect(layout.eventsDir(staging)).toBe('/srv/data/env/staging/events');
    expect(layout.tokensFile(staging)).toBe('/srv/data/env/staging/tokens.json');
  });

  it('lists local always, plus each env directory with a valid id, sorted', async () => {
    expect(await listEnvironments(join(root, 'missing'))).toEqual(['local']);
    for (const name of ['prod', 'a-team', 'Bad_Name', '.hidden']) await mkdir(join(root, 'env', name), { recursive: true });
    await writeFile(join(root, 'env', 'stray-file'), '');
    expect(await listEnvironments(root)).toEqual(['a-team', 'local', 'prod']);
  });
});

describe('data dir ownership', () => {
  it('writes owner.json at mode 0600 with pid, admin key and, once published, the URL', async () => {
    const ownership = await acquireOwnership(join(root, 'fresh'));
    const ownerFile = join(root, 'fresh', 'owner.json');
    expect((await stat(ownerFile)).mode & 0o777).toBe(0o600);
    expect(await readOwner(join(root, 'fresh'))).toMatchObject({ pid: process.pid, url: '', adminKey: ownership.adminKey });
    await ownership.publish('http://127.0.0.1:8080');
    expect((await stat(ownerFile)).mode & 0o777).toBe(0o600);
    const owner = await readOwner(join(root, 'fresh'));
    expect(owner).toEqual({ pid: process.pid, url: 'http://127.0.0.1:8080', adminKey: ownership.adminKey, startedAt: expect.any(String), lasting: true });
    expect(ownership.adminKey.length).toBeGreaterThanOrEqual(32);
    await ownership.release();
  });

  it('refuses a second owner with DATA_DIR_LOCKED naming the pid and URL of the first', async () => {
    const first = await acquireOwnership(root);
    await first.publish('http://127.0.0.1:8080');
    const error = await acquireOwnership(root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect(error).toMatchObject({ code: 'DATA_DIR_LOCKED', owner: { pid: process.pid, url: 'http://127.0.0.1:8080' } });
    expect((error as Error).message).toBe(
      `data dir ${root} is in use by dashcd pid ${process.pid} serving http://127.0.0.1:8080 — stop it first (plan, apply, pull and token commands go through it by themselves)`,
    );
    await first.release();
  });

  it('treats a recorded pid that is running as a live owner, still starting while it has no URL', async () => {
    await writeOwner({ pid: process.ppid, url: '', adminKey: 'k', startedAt: new Date().toISOString(), identity: await identityOf(process.ppid) });
    expect(await readOwner(root)).toEqual({ pid: process.ppid, url: '', adminKey: 'k', startedAt: expect.any(String), lasting: true });
    await expect(acquireOwnership(root)).rejects.toThrow(`data dir ${root} is in use by dashcd pid ${process.ppid}, which is still starting`);
  });

  it('lets exactly one of many concurrent acquirers win', async () => {
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireOwnership(root)));
    const winners = results.filter((r) => r.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DataDirLockedError);
    await (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireOwnership>>>).value.release();
  });

  it('takes over an owner file left by a dead process', async () => {
    await writeOwner({ pid: await deadPid(), url: 'http://127.0.0.1:1', adminKey: 'old', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(await readOwner(root)).toBeUndefined();
    const ownership = await acquireOwnership(root);
    expect(await readOwner(root)).toMatchObject({ pid: process.pid, adminKey: ownership.adminKey });
    expect((await readdir(root)).sort()).toEqual(['owner.json']);
    await ownership.release();
  });

  it('takes over an owner file whose process was killed but not yet reaped (a zombie)', async () => {
    const { pid, identity, parent } = await zombie();
    try {
      await writeOwner({ pid, url: 'http://127.0.0.1:1', adminKey: 'old', startedAt: new Date().toISOString(), identity });
      expect(await readOwner(root)).toBeUndefined();
      const ownership = await acquireOwnership(root);
      expect((await readOwner(root))?.adminKey).toBe(ownership.adminKey);
      await ownership.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over when the recorded pid now belongs to a different process (pid reuse after a restart)', async () => {
    await writeOwner({ pid: process.pid, url: 'http://127.0.0.1:1', adminKey: 'old', startedAt: '2001-01-01T00:00:00.000Z' });
    expect(await readOwner(root)).toBeUndefined();
    await writeOwner({ pid: process.ppid, url: 'http://127.0.0.1:1', adminKey: 'old', startedAt: '2001-01-01T00:00:00.000Z', identity: 'another-boot:1' });
    expect(await readOwner(root)).toBeUndefined();
    const ownership = await acquireOwnership(root);
    expect((await readOwner(root))?.adminKey).toBe(ownership.adminKey);
    await ownership.release();
  });

  it('takes over a damaged owner file', async () => {
    await writeFile(join(root, 'owner.json'), '');
    const ownership = await acquireOwnership(root);
    expect((await readOwner(root))?.adminKey).toBe(ownership.adminKey);
    await ownership.release();
  });

  it('ignores an owner file no dashcd wrote (without its live pid\'s identity, in any mode; a link; a FIFO) and takes it over', async () => {
    // A committed .dashcd/owner.json naming a live pid sent a CI run's commands, with the admin key, to its URL; a
    // checkout under umask 077 is 0600 like dashcd's own, so the mode alone does not tell.
    const owner = { pid: process.ppid, url: 'http://attacker.example:1', adminKey: 'committed', startedAt: new Date().toISOString(), lasting: true };
    const live = JSON.stringify(owner);
    const file = join(root, 'owner.json');
    const elsewhere = join(root, 'elsewhere.json');
    await writeFile(elsewhere, JSON.stringify({ ...owner, identity: await identityOf(process.ppid) }), { mode: 0o600 });
    const planted: [string, () => Promise<unknown>][] = [
      ['0644, no identity', () => writeFile(file, live, { mode: 0o644 })],
      ['0600, no identity', () => writeFile(file, live, { mode: 0o600 })],
      ['0600, another identity', () => writeFile(file, JSON.stringify({ ...owner, identity: 'b0b0b0b0-0000-4000-8000-000000000000:1' }), { mode: 0o600 })],
      ['a symbolic link to a live owner\'s file', () => symlink(elsewhere, file)],
      ['a FIFO', () => execFileAsync('mkfifo', [file])],
    ];
    for (const [what, plant] of planted) {
      await plant();
      expect(await readOwner(root), what).toBeUndefined();
      const ownership = await acquireOwnership(root);
      expect((await readOwner(root))?.adminKey, what).toBe(ownership.adminKey);
      await ownership.release();
    }
  });

  it('holds the lock for a live owner (its identity) whatever URL it published: a second serve would write beside it', async () => {
    // A URL the own-listener rule could not place made a live serve's file stale: --host ::ffff:127.0.0.1 (which the
    // URL parser rewrites), a link-local address with its zone (which it refuses), an address gone from the interfaces.
    // Only where no /proc identity decides is the URL what tells a committed file (isOwnListenerUrl's tests).
    const owner = { pid: process.ppid, adminKey: 'k', startedAt: new Date().toISOString(), lasting: true, identity: await identityOf(process.ppid) };
    for (const url of ['http://[::ffff:127.0.0.1]:1', 'http://[fe80::1%eth0]:1', 'http://203.0.113.9:8080', 'http://127.0.0.1:1']) {
      await writeFile(join(root, 'owner.json'), JSON.stringify({ ...owner, url }), { mode: 0o600 });
      expect(await readOwner(root), url).toMatchObject({ url, adminKey: 'k' });
      await expect(acquireOwnership(root), url).rejects.toBeInstanceOf(DataDirLockedError);
    }
  });

  it('holds the lock for a live owner whose file shows other modes (WSL\'s Windows drives and SMB shares show 0755)', async () => {
    await writeFile(join(root, 'owner.json'), JSON.stringify({ pid: process.ppid, url: 'http://127.0.0.1:1', adminKey: 'k', startedAt: new Date().toISOString(), lasting: true, identity: await identityOf(process.ppid) }), { mode: 0o755 });
    expect(await readOwner(root)).toMatchObject({ pid: process.ppid, adminKey: 'k' });
    await expect(acquireOwnership(root)).rejects.toBeInstanceOf(DataDirLockedError);
    expect(JSON.parse(await readFile(join(root, 'owner.json'), 'utf8'))).toMatchObject({ adminKey: 'k' });
  });

  it('removes owner.json on release, and only its own', async () => {
    const ownership = await acquireOwnership(root);
    await ownership.release();
    expect(await readdir(root)).toEqual([]);
    expect(await readOwner(root)).toBeUndefined();
    await ownership.release();

    const stale = await acquireOwnership(root);
    const next = JSON.stringify({ pid: process.pid, url: '', adminKey: 'someone-else', startedAt: new Date().toISOString() });
    await writeFile(join(root, 'owner.json'), next, { mode: 0o600 });
    await stale.release();
    expect(await readFile(join(root, 'owner.json'), 'utf8')).toBe(next);
  });
});

describe('/proc/<pid>/stat parsing', () => {
  const rest = '1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 1170114 3133440 388';
  it.each([
    ['R', false],
    ['S', false],
    ['D', false],
    ['T', false],
    ['Z', true],
    ['X', true],
  ])('reads state %s (exited: %s) and the start time', (state, exited) => {
    expect(parseProcStat(`4242 (node) ${state} ${rest}\n`)).toEqual({ state, startTicks: '1170114', exited });
  });

  it('counts fields from the end of a command name that holds spaces and parentheses', () => {
    expect(parseProcStat(`4242 (a) Z (b c) R ${rest}`)).toEqual({ state: 'R', startTicks: '1170114', exited: false });
  });

  it('gives undefined for a truncated line', () => {
    expect(parseProcStat('4242 (node) R 1 1')).toBeUndefined();
    expect(parseProcStat('')).toBeUndefined();
  });
});

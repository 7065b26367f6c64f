import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeCheckCache, encodeCheckCache } from '../../src/desired/check-cache-format.js';
import { openCheckCache } from '../../src/desired/check-cache-file.js';
import { checkCodeKey } from '../../src/desired/check-code-key.js';
import { decodeFileStamps, encodeFileStamps, stampOf } from '../../src/desired/file-stamps.js';
import { loadDesired } from '../../src/desired/load-desired.js';
import type { PackedCheck } from '../../src/desired/packed-check.js';
import { createProject, MAIN_JS, runDashcd, runDashcdChild, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const FILES: Record<string, string> = {
  'dashboards/checkout.yaml': markdownDashboard({ name: 'Checkout', owner: 'shop@example.com', markdown: '"Checkout funnel"' }),
  'dashboards/team/hosts.yaml': markdownDashboard({ name: 'Hosts', owner: 'ops@example.com', markdown: 'CPU' }),
  'dashboards/team/typo.yaml': markdownDashboard({ name: 'Typo', owner: 'ops@example.com', markdown: 'x' }).replace('tiles:', 'tilez: 1\ntiles:'),
};

const PLANTED: PackedCheck = { ok: false, problems: [{ line: 1, col: 1, path: '', message: 'planted by the test' }] };

let project: Project;
let cacheHome: string;
let env: Record<string, string>;

beforeEach(async () => {
  project = await createProject(FILES);
  cacheHome = await mkdtemp(join(tmpdir(), 'dashcd-cache-'));
  // On explicitly: test child processes run with the cache off unless told (test/helpers/cli.ts).
  env = { XDG_CACHE_HOME: cacheHome, DASHCD_CACHE: 'on' };
});
afterEach(async () => {
  await project.cleanup();
  await rm(cacheHome, { recursive: true, force: true });
});

const dashboardsRoot = (): string => join(project.root, 'dashboards');
const cachePath = async (): Promise<string> => (await openCheckCache(dashboardsRoot(), env))?.path as string;
const hashOfFile = async (file: string): Promise<string> => createHash('sha256').update(await readFile(join(project.root, file))).digest('hex');
const validate = (...args: string[]) => runDashcd(['validate', ...args], { cwd: project.root, env });

async function plant(key: Buffer, file: string): Promise<void> {
  await writeFile(await cachePath(), encodeCheckCache(key, [[await hashOfFile(file), PLANTED]]));
}

async function cachedEntries(key?: Buffer): Promise<Map<string, PackedCheck> | undefined> {
  return decodeCheckCache(await readFile(await cachePath()), key ?? (await checkCodeKey()));
}

describe('the check cache between runs', () => {
  it('a plan from the cache is byte-identical to a plan without it, with and without changes pending', async () => {
    const planJson = async (...args: string[]) => {
      const result = await runDashcd(['plan', '--output', 'json', ...args], { cwd: project.root, env });
      expect(result.code).toBe(0);
      return result.stdout;
    };
    const cold = await planJson('--no-cache');
    await expect(stat(cacheHome + '/dashcd')).rejects.toThrow();
    const filling = await planJson();
    expect((await cachedEntries())?.size).toBe(3);
    expect(await planJson()).toBe(cold);
    expect(filling).toBe(cold);
    expect(await runDashcd(['apply'], { cwd: project.root, env })).toMatchObject({ code: 0 });
    const noOpCold = await planJson('--no-cache');
    expect(await planJson()).toBe(noOpCold);
    expect(noOpCold).not.toBe(cold);
  });

  it('is read: a check planted for a file’s bytes is what validate reports, until the file changes', async () => {
    expect((await validate()).code).toBe(0);
    await plant(await checkCodeKey(), 'dashboards/checkout.yaml');
    const planted = await validate();
    expect(planted.code).toBe(3);
    expect(planted.stdout).toContain('dashboards/checkout.yaml:1:1  planted by the test');
    await project.write('dashboards/checkout.yaml', `${FILES['dashboards/checkout.yaml']}# edited\n`);
    expect((await validate()).code).toBe(0);
  });

  it('is not read from a file or folder someone else may write (another job of a shared runner could plant checks)', async () => {
    expect((await validate()).code).toBe(0);
    const path = await cachePath();
    await plant(await checkCodeKey(), 'dashboards/checkout.yaml');
    expect((await validate()).code).toBe(3);
    await chmod(path, 0o666);
    expect((await validate()).code).toBe(0);
    // The run wrote its own checks in its place, for this user only.
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await plant(await checkCodeKey(), 'dashboards/checkout.yaml');
    expect((await validate()).code).toBe(3);
    const folder = join(cacheHome, 'dashcd');
    await chmod(folder, 0o775);
    try {
      expect((await validate()).code).toBe(0);
    } finally {
      await chmod(folder, 0o700);
    }
  });

  it('--no-cache and DASHCD_CACHE=off neither read nor write it', async () => {
    const fresh = await validate('--no-cache');
    expect(fresh.code).toBe(0);
    await expect(stat(join(cacheHome, 'dashcd'))).rejects.toThrow();
    await validate();
    await plant(await checkCodeKey(), 'dashboards/checkout.yaml');
    const before = await readFile(await cachePath());
    expect(await validate('--no-cache')).toEqual(fresh);
    expect(await runDashcd(['validate'], { cwd: project.root, env: { ...env, DASHCD_CACHE: 'off' } })).toEqual(fresh);
    expect(await runDashcd(['plan', '--no-cache'], { cwd: project.root, env })).toMatchObject({ code: 0 });
    expect(await readFile(await cachePath())).toEqual(before);
  });

  it('a truncated, damaged or foreign file is ignored and written again', async () => {
    const expected = await validate();
    expect(expected.code).toBe(0);
    expect(expected.stdout).toContain('tilez');
    const path = await cachePath();
    const whole = await readFile(path);
    const damages: [string, () => Promise<void>][] = [
      ['truncated', () => truncate(path, Math.floor(whole.length / 2))],
      ['garbage', () => writeFile(path, 'not a cache file at all')],
      ['empty', () => writeFile(path, '')],
      ['flipped byte', () => writeFile(path, whole.map((b, i) => (i === whole.length - 3 ? b ^ 0xff : b)))],
      ['another version of the checks', () => plant(createHash('sha256').update('dashcd 0.0.1').digest(), 'dashboards/checkout.yaml')],
    ];
    for (const [what, damage] of damages) {
      await damage();
      expect(await validate(), what).toEqual(expected);
      expect((await cachedEntries())?.size, what).toBe(3);
    }
  });

  it('a run over some files keeps the others’ checks; a full run drops checks of files gone', async () => {
    await validate();
    const hosts = await hashOfFile('dashboards/team/hosts.yaml');
    await project.write('dashboards/team/hosts.yaml', `${FILES['dashboards/team/hosts.yaml']}# edited\n`);
    expect((await validate('dashboards/team/hosts.yaml')).code).toBe(0);
    expect([...((await cachedEntries()) as Map<string, PackedCheck>).keys()]).toContain(hosts);
    expect((await cachedEntries())?.size).toBe(4);
    expect((await validate()).code).toBe(0);
    expect((await cachedEntries())?.size).toBe(3);
    expect([...((await cachedEntries()) as Map<string, PackedCheck>).keys()]).not.toContain(hosts);
  });

  it('a cache file no run used for 30 days is removed when another folder’s is written; one in use is kept', async () => {
    await validate();
    const path = await cachePath();
    const monthsAgo = new Date(Date.now() - 40 * 24 * 3_600_000);
    const other = join(cacheHome, 'dashcd', 'checks-0123456789abcdef01234567.bin');
    await writeFile(other, 'a folder no run has read for 40 days');
    await utimes(other, monthsAgo, monthsAgo);
    await utimes(path, monthsAgo, monthsAgo);
    expect((await validate()).code).toBe(0);
    expect((await stat(path)).mtimeMs).toBeGreaterThan(monthsAgo.getTime() + 24 * 3_600_000);
    await expect(stat(other)).resolves.toBeDefined();
    await project.write('dashboards/checkout.yaml', `${FILES['dashboards/checkout.yaml']}# edited\n`);
    expect((await validate()).code).toBe(0);
    await expect(stat(other)).rejects.toThrow();
    await expect(stat(path)).resolves.toBeDefined();
  });

  it('a cache folder that cannot be written leaves the run as it was', async () => {
    const expected = await runDashcd(['validate'], { cwd: project.root, env: {} });
    const blocker = join(cacheHome, 'a-file');
    await writeFile(blocker, 'not a folder');
    expect(await runDashcd(['validate'], { cwd: project.root, env: { XDG_CACHE_HOME: blocker } })).toEqual(expected);
  });

  it('two runs over some files that read the same cache keep each other\'s new checks, whichever saves last', async () => {
    const first = await openCheckCache(dashboardsRoot(), env);
    const second = await openCheckCache(dashboardsRoot(), env);
    first?.set('a'.repeat(64), PLANTED);
    second?.set('b'.repeat(64), PLANTED);
    await first?.save({ keepUnseen: true });
    await second?.save({ keepUnseen: true });
    expect([...((await cachedEntries()) ?? new Map()).keys()].sort()).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
    expect(await readdir(join(cacheHome, 'dashcd'))).toEqual([(await cachePath()).split('/').pop()]);
  });

  it('concurrent runs, whole and partial, leave a whole file of the current checks and no temp files', async () => {
    // The children run the bundle, whose key is made from the bundled modules.
    const built = (await import(pathToFileURL(join(MAIN_JS, '../check-code-key.js')).href)) as { checkCodeKey(): Promise<Buffer> };
    const key = await built.checkCodeKey();
    const child = (...args: string[]) => runDashcdChild(['validate', ...args], { cwd: project.root, env });
    for (let round = 0; round < 2; round++) {
      await project.write('dashboards/team/hosts.yaml', `${FILES['dashboards/team/hosts.yaml']}# round ${round}\n`);
      const results = await Promise.all([child(), child('dashboards/team'), child(), child('dashboards/checkout.yaml')]);
      expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
      const entries = await cachedEntries(key);
      expect(entries).toBeDefined();
      expect(entries?.get(await hashOfFile('dashboards/team/hosts.yaml'))).toMatchObject({ ok: true, name: 'Hosts' });
    }
    const checks = (await cachePath()).split('/').pop() as string;
    // The stamps file is there once a run meets files written more than SETTLED_MS before it.
    expect((await readdir(join(cacheHome, 'dashcd'))).filter((name) => name !== checks.replace(/\.bin$/, '.stamps'))).toEqual([checks]);
  });
});

describe('file stamps beside the checks', () => {
  /** Ahead of the real clock: the files the test has just written count as settled. */
  const ahead = { now: () => Date.now() + 60_000 };
  const checkout = (): string => join(project.root, 'dashboards/checkout.yaml');
  const stampsPath = async (): Promise<string> => (await cachePath()).replace(/\.bin$/, '.stamps');
  const stamps = async () => decodeFileStamps(await readFile(await stampsPath()));
  const names = async (clock = ahead): Promise<string[]> => {
    const cache = await openCheckCache(dashboardsRoot(), env, clock);
    const loaded = await loadDesired({ dir: dashboardsRoot(), cwd: project.root, workers: 0, ...(cache ? { cache } : {}) });
    await cache?.save({ keepUnseen: false });
    return loaded.dashboards.map((d) => d.name);
  };

  it('a file rewritten in place to the same size and mtime is read and checked again: its ctime moved', async () => {
    // Whole seconds, which utimes sets back exactly.
    const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
    await utimes(checkout(), past, past);
    expect(await names()).toContain('Checkout');
    const recorded = (await stamps())?.get(checkout());
    expect(recorded?.contentHash).toBe(await hashOfFile('dashboards/checkout.yaml'));
    await writeFile(checkout(), (FILES['dashboards/checkout.yaml'] as string).replace('name: Checkout', 'name: Checkoux'));
    await utimes(checkout(), past, past);
    // The premise: size, mtime, inode and device as recorded; only the ctime tells the bytes changed.
    const now = stampOf(await stat(checkout()));
    expect({ ...now, ctimeMs: 0 }).toEqual({ ...recorded?.stamp, ctimeMs: 0 });
    expect(now.ctimeMs).not.toBe(recorded?.stamp.ctimeMs);
    const after = await names();
    expect(after).toContain('Checkoux');
    expect(after).not.toContain('Checkout');
    expect((await stamps())?.get(checkout())?.contentHash).toBe(await hashOfFile('dashboards/checkout.yaml'));
  });

  it('a stamp vouches for the bytes: a planted one is used while its hash has a check, and ignored otherwise', async () => {
    expect(await names()).toEqual(['Checkout', 'Hosts', 'Typo']);
    const recorded = (await stamps()) as Map<string, { stamp: ReturnType<typeof stampOf>; contentHash: string }>;
    expect([...recorded.keys()].sort()).toEqual(Object.keys(FILES).map((file) => join(project.root, file)).sort());
    const plantFor = async (contentHash: string) => {
      const entry = { stamp: recorded.get(checkout())!.stamp, contentHash };
      await writeFile(await stampsPath(), encodeFileStamps([...recorded, [checkout(), entry]]));
    };
    // Hosts' bytes have a check, so the stamp is believed and checkout.yaml is not read.
    await plantFor(await hashOfFile('dashboards/team/hosts.yaml'));
    expect(await names()).toEqual(['Hosts', 'Hosts', 'Typo']);
    // No check for these bytes: the file is read (a stamp never makes a check of bytes it did not read).
    await plantFor(createHash('sha256').update('bytes no run has checked').digest('hex'));
    expect(await names()).toEqual(['Checkout', 'Hosts', 'Typo']);
  });

  it('files written within SETTLED_MS of the run are read every time, never stamped', async () => {
    expect(await names({ now: Date.now })).toEqual(['Checkout', 'Hosts', 'Typo']);
    expect((await stamps().catch(() => undefined))?.size ?? 0).toBe(0);
    expect(await names()).toEqual(['Checkout', 'Hosts', 'Typo']);
    expect((await stamps())?.size).toBe(3);
  });

  it('a whole run drops the stamps of files gone; a run over some files keeps them', async () => {
    await names();
    await rm(join(project.root, 'dashboards/team/hosts.yaml'));
    const cache = await openCheckCache(dashboardsRoot(), env, ahead);
    await loadDesired({ dir: dashboardsRoot(), cwd: project.root, workers: 0, only: ['dashboards/checkout.yaml'], ...(cache ? { cache } : {}) });
    await cache?.save({ keepUnseen: true });
    expect((await stamps())?.size).toBe(3);
    await names();
    expect([...((await stamps()) as Map<string, unknown>).keys()].sort()).toEqual([checkout(), join(project.root, 'dashboards/team/typo.yaml')]);
  });
});

import { existsSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIVEN_TMPDIR, MEMORY_DIR, MIN_FREE_BYTES, memoryTempParent, useMemoryTempDir } from '../../helpers/memory-temp-dir.js';

const TMPFS = 0x01021994;
const EXT4 = 0xef53;
const statfsOf = (type: number, freeBytes: number) => () => ({ type, bsize: 4096, bavail: Math.floor(freeBytes / 4096) });

describe('the suite’s temporary files on tmpfs', () => {
  it('are put on a tmpfs with room for the suite', async () => {
    expect(await memoryTempParent({}, statfsOf(TMPFS, MIN_FREE_BYTES))).toBe(MEMORY_DIR);
    expect(await memoryTempParent({ TMPDIR: '' }, statfsOf(TMPFS, 24 * 1024 ** 3), '/mnt/ram')).toBe('/mnt/ram');
  });

  it('stay where they are on a disk, on a tmpfs too small (a container’s 64 MB /dev/shm) or where there is none', async () => {
    expect(await memoryTempParent({}, statfsOf(EXT4, 24 * 1024 ** 3))).toBeUndefined();
    expect(await memoryTempParent({}, statfsOf(TMPFS, 64 * 1024 ** 2))).toBeUndefined();
    expect(await memoryTempParent({}, statfsOf(TMPFS, MIN_FREE_BYTES - 4096))).toBeUndefined();
    const missing = (): never => {
      throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    };
    expect(await memoryTempParent({}, missing)).toBeUndefined();
  });

  it('stay in the TMPDIR a user set', async () => {
    expect(await memoryTempParent({ TMPDIR: '/var/tmp' }, statfsOf(TMPFS, 24 * 1024 ** 3))).toBeUndefined();
  });

  let parent = '';
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('go to a directory of the run, which the teardown removes with whatever a test left in it', async () => {
    parent = mkdtempSync(join(tmpdir(), 'dashcd-memory-parent-'));
    const env: NodeJS.ProcessEnv = {};
    const teardown = await useMemoryTempDir(env, statfsOf(TMPFS, MIN_FREE_BYTES), parent);
    const dir = env.TMPDIR ?? '';
    expect(dir.startsWith(join(parent, 'dashcd-tests-'))).toBe(true);
    writeFileSync(join(dir, 'left-behind'), 'x');
    teardown?.();
    expect(existsSync(dir)).toBe(false);
    expect(await useMemoryTempDir({ TMPDIR: '/var/tmp' }, statfsOf(TMPFS, MIN_FREE_BYTES), parent)).toBeUndefined();
  });

  it('are set up once for a run whose config has several projects', async () => {
    parent = mkdtempSync(join(tmpdir(), 'dashcd-memory-parent-'));
    const env: NodeJS.ProcessEnv = {};
    const teardown = await useMemoryTempDir(env, statfsOf(TMPFS, MIN_FREE_BYTES), parent);
    const first = env.TMPDIR;
    expect(await useMemoryTempDir(env, statfsOf(TMPFS, MIN_FREE_BYTES), parent)).toBeUndefined();
    expect(env.TMPDIR).toBe(first);
    expect(env[GIVEN_TMPDIR]).toBe('');
    teardown?.();
  });

  it('are where this very run put them', async () => {
    // What the global setup was given decides, read back as it kept it: without the setup this is undefined, and on
    // a machine with a roomy /dev/shm the expectation below then fails.
    const given = process.env[GIVEN_TMPDIR];
    const parentOfRun = await memoryTempParent({ TMPDIR: given }, (path) => statfsSync(path));
    if (parentOfRun === undefined) expect(tmpdir()).toBe(given === undefined || given === '' ? '/tmp' : given);
    else expect(tmpdir()).toMatch(new RegExp(`^${parentOfRun}/dashcd-tests-\\w+$`));
  });
});

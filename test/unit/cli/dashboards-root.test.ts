import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findDashboardsRoot, isWithin, workTreeRootOf } from '../../../src/cli/dashboards-root.js';

const run = promisify(execFile);

let outer: string;
beforeEach(async () => {
  outer = await realpath(await mkdtemp(join(tmpdir(), 'dashcd-root-')));
  // The temp dir may itself lie in a git work tree (TMPDIR inside a checkout): git, which findDashboardsRoot runs
  // with this environment, must not look above `outer`, or the "outside git" cases would see that tree.
  vi.stubEnv('GIT_CEILING_DIRECTORIES', dirname(outer));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(outer, { recursive: true, force: true });
});

async function gitInit(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await run('git', ['init', '-q'], { cwd: dir });
}

describe('findDashboardsRoot (where pull looks for dashboards a file already claims)', () => {
  it('is dashboards/ at the git root when --dir is inside it, even from another cwd and before --dir exists', async () => {
    const repo = join(outer, 'repo');
    await gitInit(repo);
    await mkdir(join(repo, 'dashboards'));
    await mkdir(join(repo, 'scripts'));
    expect(await findDashboardsRoot(join(repo, 'dashboards/imported/new'), join(repo, 'scripts'))).toBe(join(repo, 'dashboards'));
  });

  it('is the folder next to dashcd.yaml, whatever its name, before the default dashboards/', async () => {
    await writeFile(join(outer, 'dashcd.yaml'), 'ignore: []\n');
    expect(await findDashboardsRoot(join(outer, 'boards/imported'), outer)).toBe(join(outer, 'boards'));
    expect(await findDashboardsRoot(join(outer, 'dashboards'), outer)).toBe(join(outer, 'dashboards'));
  });

  it('is dashboards/ in cwd outside git, and --dir itself when nothing else claims it', async () => {
    expect(await findDashboardsRoot(join(outer, 'dashboards/imported'), outer)).toBe(join(outer, 'dashboards'));
    expect(await findDashboardsRoot(join(outer, 'elsewhere/imported'), outer)).toBe(join(outer, 'elsewhere/imported'));
  });

  it('never takes a dashcd.yaml above the git work tree', async () => {
    await writeFile(join(outer, 'dashcd.yaml'), 'ignore: []\n');
    const repo = join(outer, 'repo');
    await gitInit(repo);
    expect(await findDashboardsRoot(join(repo, 'imported'), repo)).toBe(join(repo, 'imported'));
  });

  it('compares paths through a symlinked checkout (git answers with the real path)', async () => {
    const repo = join(outer, 'repo');
    await gitInit(repo);
    await mkdir(join(repo, 'dashboards'));
    const link = join(outer, 'link');
    await symlink(repo, link);
    expect(await findDashboardsRoot(join(link, 'dashboards/imported'), outer)).toBe(join(link, 'dashboards'));
  });
});

describe('workTreeRootOf', () => {
  it('is none when the operator’s GIT_DIR and GIT_WORK_TREE name a work tree that does not hold the folder (it was /)', async () => {
    const repo = join(outer, 'repo');
    await gitInit(repo);
    const elsewhere = join(outer, 'elsewhere', 'sub');
    await mkdir(elsewhere, { recursive: true });
    expect(await workTreeRootOf(elsewhere)).toBeUndefined();
    vi.stubEnv('GIT_DIR', join(repo, '.git'));
    vi.stubEnv('GIT_WORK_TREE', repo);
    expect(await workTreeRootOf(elsewhere)).toBeUndefined();
    expect(await workTreeRootOf(join(repo))).toBe(repo);
  });
});

describe('isWithin', () => {
  it('holds for the folder itself and anything below, not for siblings with a common prefix or parents', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b/c/d', '/a/b')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
    expect(isWithin('/a', '/a/b')).toBe(false);
    expect(isWithin('/a/b/../c', '/a/b')).toBe(false);
  });
});

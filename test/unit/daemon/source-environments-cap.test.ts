import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPOSITORY_ENVIRONMENTS, MAX_REPOSITORY_ENVIRONMENTS, openRepoFollowing } from '../../../src/daemon/daemon-repo.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { createGitRemote } from '../../helpers/git-remote.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** dashcd.yaml declaring `count` environments e0, e1, … (the last one remote, with a target the operator allowed). */
function environmentsYaml(count: number): string {
  const embedded = Array.from({ length: count - 1 }, (_, i) => `  e${i}: {}\n`).join('');
  return `environments:\n${embedded}  prod:\n    target: https://prod.example.com\n    tokenEnv: DT_PROD_TOKEN\n`;
}

/** What the daemon refuses of the newest commit when its dashcd.yaml declares `count` environments. */
async function refusedWith(count: number, maxEnvironments?: number): Promise<string[] | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'dashcd-env-cap-'));
  dirs.push(dir);
  const remote = await createGitRemote(dir);
  await remote.commit({ 'dashcd.yaml': environmentsYaml(count), 'dashboards/a.yaml': 'x: 1\n' }, `${count} environments`);
  await remote.push();
  const following = await openRepoFollowing(
    { url: remote.fileUrl, follow: { branch: 'main' }, path: 'dashboards', fetchMs: 60_000, skipInvalid: false, allowTargets: [{ tokenEnv: 'DT_PROD_TOKEN', url: 'https://prod.example.com' }], ...(maxEnvironments === undefined ? {} : { maxEnvironments }) },
    { cwd: dir, dataDir: '.dashcd', log: silentLogger() },
  );
  return (await following.projectConfig(new AbortController().signal))?.refused;
}

describe('how many environments a followed commit may declare', { timeout: 30_000 }, () => {
  it(`takes ${DEFAULT_REPOSITORY_ENVIRONMENTS} by default and refuses one more, whole, saying how many it declares (100 ran the daemon out of memory)`, async () => {
    expect(await refusedWith(DEFAULT_REPOSITORY_ENVIRONMENTS)).toEqual([]);
    expect(await refusedWith(DEFAULT_REPOSITORY_ENVIRONMENTS + 1)).toEqual([
      `dashcd.yaml declares ${DEFAULT_REPOSITORY_ENVIRONMENTS + 1} environments; this daemon following a repository starts at most ${DEFAULT_REPOSITORY_ENVIRONMENTS} (its operator's --max-environments)`,
    ]);
  });

  it(`takes as many as the operator's --max-environments allows, up to ${MAX_REPOSITORY_ENVIRONMENTS}`, async () => {
    expect(await refusedWith(MAX_REPOSITORY_ENVIRONMENTS, MAX_REPOSITORY_ENVIRONMENTS)).toEqual([]);
    expect(await refusedWith(3, 2)).toEqual([`dashcd.yaml declares 3 environments; this daemon following a repository starts at most 2 (its operator's --max-environments)`]);
  });
});

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { dashboardYaml, type DaemonChild, type StatusJson } from './daemon.js';
import type { DaemonScope } from './daemon-scope.js';
import { createGitRemote, type GitRemote } from './git-remote.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';
import { api } from './server.js';
import { waitFor } from './wait.js';

/** A repository to follow, served over loopback HTTP, and an empty project folder to run the daemon in. */
export interface GitFixture {
  remote: GitRemote;
  server: GitHttpServer;
  /** `http://127.0.0.1:<port>/dashboards.git` */
  url: string;
  /** The daemon's working directory (its data dir `.dashcd` goes here). */
  cwd: string;
  dir: string;
}

/** Registers its own afterEach: every fixture's server is stopped and its folders removed after the test. */
export function gitFixturePerTest(daemons: Pick<DaemonScope, 'stopAll'>): (options?: { token?: string }) => Promise<GitFixture> {
  const made: GitFixture[] = [];
  afterEach(async () => {
    // after-each hooks run last-registered first, so this one may run before the daemon scope's: the daemons write
    // into the fixture's folder (its data dir) and must be gone before it is removed, or the removal races them.
    await daemons.stopAll();
    for (const fixture of made.splice(0)) {
      await fixture.server.stop();
      await rm(fixture.dir, { recursive: true, force: true });
    }
  });
  return async (options = {}) => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-gitops-'));
    const remote = await createGitRemote(dir);
    const server = await startGitHttpServer({ projectRoot: remote.projectRoot, ...(options.token ? { token: options.token } : {}) });
    const cwd = join(dir, 'daemon');
    const fixture = { remote, server, url: `${server.url}/dashboards.git`, cwd, dir };
    made.push(fixture);
    await mkdir(cwd);
    return fixture;
  };
}

/** Commits `dashboards/<name>.yaml` with `marker` in its name and pushes it to main; returns the commit. */
export async function pushDashboard(remote: GitRemote, name: string, marker: string, extra: Record<string, string | null> = {}): Promise<string> {
  const sha = await remote.commit({ [`dashboards/${name}.yaml`]: dashboardYaml(name, marker), ...extra }, `${name} ${marker}`);
  await remote.push();
  return sha;
}

/** `/status`'s `source` block, as the tests read it. */
export interface SourceJson {
  env: string;
  live: { commit: string; shortCommit: string; committedAt: string; author: string; subject: string; ref: string; fetchedAt: string; appliedAt: string } | null;
  pending: { commit: string; error: string | null; invalid: string[]; refused: string[] } | null;
  lastFetch: { at: string; ok: boolean; error?: string } | null;
  stale: boolean;
  staleReasons: string[];
}

export async function sourceStatus(d: DaemonChild): Promise<SourceJson> {
  return ((await d.status()) as StatusJson & { source: SourceJson }).source;
}

/** Waits until `/status` says `commit` is live. */
export function waitForLive(d: DaemonChild, commit: string, timeoutMs = 60_000): Promise<SourceJson> {
  return waitFor(async () => {
    // Until its first fetch, a daemon that is only listening has no source block yet.
    const source = (await sourceStatus(d)) as SourceJson | undefined;
    return source?.live?.commit === commit ? source : undefined;
  }, { timeoutMs, what: `commit ${commit.slice(0, 7)} live`, failFast: () => (d.process.exitCode !== null ? `the daemon exited: ${d.stdout()}` : undefined) });
}

/** The live dashboard's name on the daemon's embedded API, by its id. */
export async function liveName(d: DaemonChild, token: string, id: string): Promise<string | undefined> {
  const response = await api(`${d.url}/e/local/api/config/v1/dashboards/${id}`, { token });
  return response.status === 200 ? (response.json as { dashboardMetadata: { name: string } }).dashboardMetadata.name : undefined;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, expect } from 'vitest';
import { Dashboard } from '../../src/schema/dashboard.js';
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { MAIN_JS, runDashcd } from './cli.js';
import { CORPUS_DASHBOARDS_DIR } from './corpus.js';

export interface ServeChild {
  readonly process: ChildProcess;
  readonly url: string;
  readonly token: string;
}

/** Every child started, so an afterAll can kill what a failed test left running. */
export const serveChildren = new Set<ChildProcess>();

const CHILD_ENV = { ...process.env, DASHCD_LOG_LEVEL: 'warn' };

/** `dashcd token create` on the data dir (no server running), in this process: the token is the last line of stdout. */
async function createToken(dataDir: string): Promise<string> {
  const result = await runDashcd(['token', 'create', '--data', dataDir, '--scopes', 'ReadConfig,WriteConfig', '--name', 'crash'], { cwd: dataDir });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}

/** `dashcd serve --port 0`, ready once it prints the address it serves. */
export async function startServeChild(dataDir: string, token: string): Promise<ServeChild> {
  // With the server's Node options given, serve is the process started (no launcher): the one a crash test kills.
  const child = spawn(process.execPath, [...serverNodeOptions(), MAIN_JS, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
  serveChildren.add(child);
  child.once('exit', () => serveChildren.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const served = /^dashcd serving (\S+) /.exec(line)?.[1];
      if (served) resolve(served);
    });
    child.once('exit', (code) => reject(new Error(`dashcd serve exited with ${code} before it was ready`)));
  });
  return { process: child, url, token };
}

const { metadata: _serverOwned, ...SEED } = JSON.parse(
  readFileSync(join(CORPUS_DASHBOARDS_DIR, 'govuk-obs__signin-signup.json'), 'utf8'),
) as { metadata: unknown; dashboardMetadata: Record<string, unknown> };

/** Version `n` of dashboard `id`: a 65 kB real dashboard whose name says which write it was. */
export function dashboardVersion(id: string, n: number): Record<string, unknown> {
  return { ...SEED, dashboardMetadata: { ...SEED.dashboardMetadata, name: `${id} v${n}` } };
}

/** A tiny seeded PRNG so a failing schedule can be replayed from the seed in the test name. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * After a restart: no damaged file was set aside, every file parses as a valid dashboard, each id holds exactly a
 * version that was sent, no older than the last acknowledged one, and every acknowledged create is there.
 */
export async function verifyAfterRestart(
  child: ServeChild,
  dataDir: string,
  ids: readonly string[],
  { acked, sent, createdIds }: { acked: ReadonlyMap<string, number>; sent: ReadonlyMap<string, number>; createdIds: readonly string[] },
): Promise<void> {
  const dir = join(dataDir, 'env', 'local', 'dashboards');
  const files = existsSync(dir) ? await readdir(dir) : [];
  expect(files).not.toContain('damaged');
  for (const file of files) {
    expect(Dashboard.safeParse(JSON.parse(await readFile(join(dir, file), 'utf8'))).success, file).toBe(true);
  }
  const headers = { authorization: `Api-Token ${child.token}` };
  for (const id of ids) {
    const response = await fetch(`${child.url}/api/config/v1/dashboards/${id}`, { headers });
    const ackedVersion = acked.get(id) ?? 0;
    if (response.status === 404) {
      expect(ackedVersion, `${id} lost`).toBe(0);
      continue;
    }
    const body = (await response.json()) as Record<string, unknown> & { dashboardMetadata: { name: string } };
    const n = Number(body.dashboardMetadata.name.split(' v')[1]);
    expect(n, `${id}: stored v${n}, acknowledged v${ackedVersion}`).toBeGreaterThanOrEqual(ackedVersion);
    expect(n).toBeLessThanOrEqual(sent.get(id) ?? 0);
    const { id: _id, metadata: _metadata, ...clientPart } = body;
    expect(JSON.stringify(clientPart) === JSON.stringify(dashboardVersion(id, n)), `${id} v${n} differs from what was sent`).toBe(true);
  }
  for (const id of createdIds) {
    expect((await fetch(`${child.url}/api/config/v1/dashboards/${id}`, { headers })).status, `created ${id} lost`).toBe(200);
  }
}

/**
 * The set-up every kill test shares: a data dir with a token (removed, with any child left running, after all),
 * and a wrapper naming the kill schedule's seed in a failure so the schedule can be replayed.
 */
export function killTestScope(prefix: string): { seed: number; random: () => number; dataDirWithToken(): Promise<{ dataDir: string; token: string }>; replayable(run: () => Promise<void>): Promise<void> } {
  const seed = Date.now() % 100_000;
  const dirs: string[] = [];
  afterAll(async () => {
    for (const child of serveChildren) child.kill('SIGKILL');
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    seed,
    random: prng(seed),
    async dataDirWithToken() {
      expect(existsSync(MAIN_JS), 'the kill tests run the built CLI: run `npm run build` first').toBe(true);
      const dataDir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dataDir);
      return { dataDir, token: await createToken(dataDir) };
    },
    replayable: (run) =>
      run().catch((error: unknown) => {
        // The kill schedule is random: the seed replays it.
        if (error instanceof Error) error.message = `${error.message} (kill schedule seed ${seed})`;
        throw error;
      }),
  };
}

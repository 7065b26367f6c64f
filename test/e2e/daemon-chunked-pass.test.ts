import { describe, expect, it } from 'vitest';
import { createToken, dashboardYaml, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { runDashcd } from '../helpers/cli.js';
import { api } from '../helpers/server.js';

const scope = daemonScopePerTest();

/**
 * A chunk of 20 files (DASHCD_PASS_CHUNK_FILES; 500 by default) and one file more than a chunk holds, then a few: the
 * full pass runs in two chunks. The chunking is the same at any size; a small one keeps each daemon's folder small.
 */
const CHUNK = 20;
const COUNT = CHUNK + 5;
const chunked = (cwd: string): { cwd: string; env: Record<string, string> } => ({ cwd, env: { DASHCD_PASS_CHUNK_FILES: String(CHUNK) } });
const PINNED = '6a1f3c52-0d4e-4f7b-9a28-1c5e7d9b3f40';

const fileName = (i: number): string => `dashboards/d${String(i).padStart(4, '0')}.yaml`;

function folder(extra: Record<string, string> = {}): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < COUNT; i++) files[fileName(i)] = dashboardYaml(`D${i}`);
  return { ...files, ...extra };
}

const finishedLines = (d: DaemonChild): Record<string, unknown>[] =>
  d.stdout().split('\n').filter((line) => line.includes('"reconcile finished"')).map((line) => JSON.parse(line) as Record<string, unknown>);

async function liveName(d: DaemonChild, root: string, id: string): Promise<string | undefined> {
  const token = await createToken(root, '.dashcd', 'ReadConfig');
  const res = await api(`${d.url}/e/local/api/config/v1/dashboards/${id}`, { token });
  return res.status === 200 ? (res.json as { dashboardMetadata: { name: string } }).dashboardMetadata.name : undefined;
}

describe('dashcd daemon: a full pass over a large folder, chunk by chunk', () => {
  it('writes every dashboard of a folder larger than one chunk, in chunks, and lists every file', async () => {
    const project = await scope.createProject(folder());
    const d = await scope.startDaemon(['--resync', '10m', '--poll', '60s'], chunked(project.root));
    expect(finishedLines(d)[0]).toMatchObject({ full: true, files: COUNT, created: COUNT, failed: 0, chunks: 2 });
    const status = await d.status();
    expect(Object.keys(status.files)).toHaveLength(COUNT);
    expect(Object.values(status.files).every((f) => f.result === 'created')).toBe(true);
    const last = status.files[fileName(COUNT - 1)]?.id ?? '';
    expect(await liveName(d, project.root, last)).toBe(`D${COUNT - 1} v1`);
    // A pass this large gives its memory back once the embedded store has written its files.
    await waitFor(() => d.stdout().includes('"memory released after a large pass"'), { what: 'the memory release after the large pass' });
  });

  it('without pruning, lists a dashboard whose file was deleted as an orphan, and logs it once, still in chunks', async () => {
    const project = await scope.createProject(folder());
    const d = await scope.startDaemon(['--resync', '1s', '--poll', '60s'], chunked(project.root));
    const gone = (await d.status()).files[fileName(3)]?.id ?? '';
    await project.remove(fileName(3));
    await waitFor(async () => (await d.status()).orphans.length === 1, { what: 'the orphan to be listed' });
    const passes = finishedLines(d).length;
    await waitFor(() => finishedLines(d).length >= passes + 2, { what: 'two more full passes' });
    expect((await d.status()).orphans).toEqual([{ id: gone, name: 'D3 v1', kind: 'dashboard' }]);
    expect(d.stdout().split('\n').filter((line) => line.includes('it stays on the target (pruning is off)'))).toHaveLength(1);
    expect(finishedLines(d).at(-1)).toMatchObject({ full: true, files: COUNT - 1, chunks: 2 });
    expect(await liveName(d, project.root, gone)).toBe('D3 v1');
  });

  it('many orphans found at once are one log line with their count, not a line each (1,499 lines before the summary)', async () => {
    const project = await scope.createProject(folder());
    const applied = await runDashcd(['apply'], { cwd: project.root, env: {} });
    expect(applied.code, applied.stderr).toBe(0);
    for (let i = 0; i < 8; i++) await project.remove(fileName(i));
    const d = await scope.startDaemon(['--resync', '10m', '--poll', '60s'], chunked(project.root));
    await waitFor(async () => (await d.status()).orphans.length === 8, { what: 'the eight orphans to be listed' });
    const lines = d.stdout().split('\n').filter((line) => line.includes('no file any more'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ count: 8, msg: '8 dashboards have no file any more; they stay on the target (pruning is off; /status lists them)' });
    expect((JSON.parse(lines[0] ?? '{}') as { first: unknown[] }).first).toHaveLength(5);
  });

  it('still finds and prunes a dashboard whose file was deleted (the whole folder is planned for it)', async () => {
    const project = await scope.createProject(folder({ 'dashcd.yaml': 'prune: true\nmaxDelete: 1\n' }));
    const d = await scope.startDaemon(['--resync', '10m', '--poll', '60s'], chunked(project.root));
    const gone = (await d.status()).files[fileName(3)]?.id ?? '';
    await project.remove(fileName(3));
    await waitFor(() => d.stdout().includes('orphan dashboard deleted'), { what: 'the orphan to be pruned' });
    const status = await d.status();
    expect(status.orphans).toEqual([]);
    expect(status.files[fileName(3)]).toBeUndefined();
    expect(Object.keys(status.files)).toHaveLength(COUNT - 1);
    expect(await liveName(d, project.root, gone)).toBeUndefined();
  });

  it('reports an id repeated in two chunks on the later file and writes only the first; the pass counts invalid files, not their problems', async () => {
    const pinned = (i: number): string => `id: ${PINNED}\n${dashboardYaml(`D${i}`)}`;
    // Two problems in one file: it counts once.
    const twoProblems = 'dashboardMetadata:\n  name: Broken\n  owner: 7\ntiles:\n  - name: T\n    tileType: NOPE\n';
    const project = await scope.createProject(folder({ [fileName(0)]: pinned(0), [fileName(COUNT - 1)]: pinned(COUNT - 1), [fileName(5)]: twoProblems }));
    const d = await scope.startDaemon(['--resync', '10m', '--poll', '60s'], chunked(project.root));
    const status = await d.status();
    expect(status.invalid.map((i) => i.file).sort()).toEqual([fileName(5), fileName(COUNT - 1)]);
    expect(status.invalid.find((i) => i.file === fileName(5))?.errors.length).toBeGreaterThan(1);
    expect(finishedLines(d)[0]).toMatchObject({ full: true, invalid: 2 });
    expect(status.invalid.find((i) => i.file === fileName(COUNT - 1))?.errors.join('\n')).toContain(`duplicate dashboard id ${PINNED}`);
    expect(await liveName(d, project.root, PINNED)).toBe('D0 v1');
  });
});

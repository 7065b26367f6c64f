import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { renderEvent, type FeedEvent } from '../helpers/events-feed-server.js';

const ONE_EVENT: FeedEvent = { eventId: '-4314211936928920171', startTime: Date.UTC(2026, 10, 18, 6), endTime: Date.UTC(2026, 10, 18, 7), eventStatus: 'CLOSED', eventType: 'CUSTOM_INFO', entityId: 'HOST-0000000000000001', entityName: 'host 1' };

/**
 * The embedded store is the project's, as its dashboards folder is: a command run from a subfolder uses the store a
 * run from the top made, instead of starting an empty one where it stands (and planning to create everything again).
 */
let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const FILES = { 'dashboards/team/api.yaml': markdownDashboard({ name: 'API', owner: 'team@example.com', markdown: 'api' }) };

describe('the default data dir (.dashcd) and events archive (events-archive) are in the project root, from any working directory in it', () => {
  for (const setup of [
    { title: 'in a git work tree', git: true, files: FILES },
    { title: 'outside git, with dashcd.yaml', git: false, files: { ...FILES, 'dashcd.yaml': 'ignore: []\n' } },
  ]) {
    it(`apply from the top, then plan from dashboards/team: nothing to do, and no store made there (${setup.title})`, async () => {
      const p = (project = await createProject(setup.files, { git: setup.git }));
      const applied = await runDashcd(['apply'], { cwd: p.root, env: {} });
      expect(applied.code, applied.stderr).toBe(0);
      const planned = await runDashcd(['plan'], { cwd: join(p.root, 'dashboards/team'), env: {} });
      expect(planned.code, planned.stderr).toBe(0);
      expect(planned.stdout).toContain(`Plan for embedded store ${join(p.root, '.dashcd')}`);
      expect(planned.stdout).toContain('No changes: 0 to create, 0 to update, 1 unchanged');
      expect(existsSync(join(p.root, 'dashboards/team/.dashcd'))).toBe(false);
    });
  }

  it('a project with its own dashboards/ below another project\'s dashcd.yaml: pull and trash read the project plan reads', async () => {
    const outer = 'environments:\n  dev: {}\n  staging: {}\n  prod: {}\n';
    const p = (project = await createProject({ 'dashcd.yaml': outer, 'sub/dashboards/s.yaml': markdownDashboard({ name: 'S', owner: 'me', markdown: 's' }) }, { git: true }));
    const sub = join(p.root, 'sub');
    const applied = await runDashcd(['apply'], { cwd: sub, env: {} });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`embedded store ${join(sub, '.dashcd')}`);
    for (const command of [['pull', '--all'], ['trash', 'list']]) {
      const result = await runDashcd(command, { cwd: sub, env: {} });
      // Was exit 64, "choose --env … dev, staging, prod": the outer project's environments, for sub's own store.
      expect(result.code, `${command.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stderr).not.toContain('--env');
    }
  });

  it('a --data that names a file is a usage error saying so, before any store is opened (was "unexpected error: ENOTDIR")', async () => {
    const p = (project = await createProject({ ...FILES, 'dashcd.yaml': 'ignore: []\n' }));
    for (const command of [['plan'], ['token', 'create', '--scopes', 'ReadConfig']]) {
      const result = await runDashcd([...command, '--data', 'dashcd.yaml'], { cwd: p.root, env: {} });
      expect(result.code, command.join(' ')).toBe(64);
      expect(result.stderr).toContain(`--data dashcd.yaml: ${join(p.root, 'dashcd.yaml')} is a file, not a folder: point --data at a folder (it is created if missing)`);
      expect(result.stderr).not.toContain('unexpected');
    }
  });

  it('a --data the machine will not let dashcd create is named with the reason, without a stack (was "unexpected error" and a JSON stack)', async () => {
    const p = (project = await createProject({ ...FILES, 'dashcd.yaml': 'ignore: []\n', 'in-the-way': 'a file\n' }));
    const result = await runDashcd(['plan', '--data', 'in-the-way/data'], { cwd: p.root, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`dashcd plan: cannot open ${join(p.root, 'in-the-way/data/owner.json')}: not a directory (ENOTDIR)\n`);
    // procfs answers ENOENT to a mkdir under it (Node's own recursive mkdir looped on that: lib/make-dirs.ts).
    const served = await runDashcd(['serve', '--data', '/proc/dashcd-nope', '--port', '0'], { cwd: p.root, env: {} });
    expect(served.code).toBe(1);
    expect(served.stderr).toBe('dashcd serve: cannot create the folder /proc/dashcd-nope: no such file or directory (ENOENT)\n');
  });

  it('a committed .dashcd/owner.json naming a live pid is not an owner: plan opens the store itself and sends nothing to its URL', async () => {
    const asked: string[] = [];
    const decoy = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(decoy.address() as AddressInfo).port}`;
      const owner = JSON.stringify({ pid: 1, url, adminKey: 'committed', startedAt: '2026-01-01T00:00:00.000Z', lasting: true });
      const p = (project = await createProject({ ...FILES, 'dashcd.yaml': 'ignore: []\n', '.dashcd/owner.json': owner }, { git: true }));
      const planned = await runDashcd(['plan'], { cwd: p.root, env: {} });
      expect(planned.code, planned.stderr).toBe(0);
      expect(planned.stdout).toContain('1 to create');
      expect(asked).toEqual([]);
    } finally {
      await new Promise((resolve) => decoy.close(resolve));
    }
  });

  it('refuses a data dir with a symbolic link in it (a committed .dashcd/), touching nothing where it leads; a --data link is taken', async () => {
    // plan deleted, moved and chmod'ed files outside the checkout through a committed .dashcd/env/local/dashboards link.
    const outside = await mkdtemp(join(tmpdir(), 'dashcd-outside-'));
    try {
      await writeFile(join(outside, 'keep.json.tmp-123456'), 'not a temp file of dashcd\'s');
      await writeFile(join(outside, '11111111-2222-4333-8444-555555555555.json'), 'someone else\'s');
      const p = (project = await createProject({ ...FILES, 'dashcd.yaml': 'ignore: []\n' }));
      await mkdir(join(p.root, '.dashcd', 'env', 'local'), { recursive: true });
      await symlink(outside, join(p.root, '.dashcd', 'env', 'local', 'dashboards'));
      const planned = await runDashcd(['plan'], { cwd: p.root, env: {} });
      expect(planned.code).toBe(64);
      expect(planned.stderr).toBe(`dashcd plan: the data dir: ${join(p.root, '.dashcd', 'env', 'local', 'dashboards')} is a symbolic link; dashcd makes none in the folders it writes and follows none (a repository can commit one): remove it, or name the folder it leads to with the flag\n`);
      expect((await readdir(outside)).sort()).toEqual(['11111111-2222-4333-8444-555555555555.json', 'keep.json.tmp-123456']);
      // The data dir itself a link: refused as the project's own; named with --data, taken.
      await rm(join(p.root, '.dashcd'), { recursive: true });
      await chmod(outside, 0o755);
      await symlink(outside, join(p.root, '.dashcd'));
      expect((await runDashcd(['plan'], { cwd: p.root, env: {} })).code).toBe(64);
      expect((await stat(outside)).mode & 0o777).toBe(0o755);
      await rm(join(p.root, '.dashcd'));
      const store = await mkdtemp(join(tmpdir(), 'dashcd-store-'));
      await symlink(store, join(p.root, 'store-link'));
      const viaLink = await runDashcd(['plan', '--data', 'store-link'], { cwd: p.root, env: {} });
      expect(viaLink.code, viaLink.stderr).toBe(0);
      // The events archive, the project's other folder dashcd writes: a committed link made events pull write there;
      // every events command refuses it.
      await symlink(outside, join(p.root, 'events-archive'));
      const pulled = await runDashcd(['events', 'stats'], { cwd: p.root, env: {} });
      expect(pulled.code).toBe(64);
      expect(pulled.stderr).toContain(`the events archive: ${join(p.root, 'events-archive')} is a symbolic link`);
      await rm(store, { recursive: true, force: true });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('events query and stats read the project\'s events-archive/ from a subfolder, as events pull and the daemon write it', async () => {
    const p = (project = await createProject({ ...FILES, 'events-archive/prod/date=2026-11-18/events.jsonl': `${renderEvent(ONE_EVENT)}\n` }, { git: true }));
    const queried = await runDashcd(['events', 'query', '--from', '2026-11-18', '--to', '2026-11-18'], { cwd: join(p.root, 'dashboards/team'), env: {} });
    expect(queried.code, queried.stderr).toBe(0);
    expect((JSON.parse(queried.stdout.trim()) as { entityId: string }).entityId).toBe('HOST-0000000000000001');
    const stats = await runDashcd(['events', 'stats', '--format', 'json'], { cwd: join(p.root, 'dashboards/team'), env: {} });
    expect(stats.code, stats.stderr).toBe(0);
    expect(Object.keys(JSON.parse(stats.stdout) as Record<string, unknown>)).toEqual(['prod']);
  });

  it('an explicit --data stays relative to the working directory', async () => {
    const p = (project = await createProject(FILES, { git: true }));
    const applied = await runDashcd(['apply', '--data', '../../store'], { cwd: join(p.root, 'dashboards/team'), env: {} });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Applied to embedded store ${join(p.root, 'store')}`);
  });
});

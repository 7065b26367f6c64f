import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/api-client.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const UNPINNED = `# Owned by the payments team
dashboardMetadata:
  name: Payments
  owner: payments@example.com
tiles:
  - name: Notes # shown first
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: Payments
`;

const LIVE_ID = '3c9d1e2f-1111-4a2b-8c3d-4e5f6a7b8c9d';
const LIVE = {
  id: LIVE_ID,
  dashboardMetadata: { name: 'Made in the UI', owner: 'ops@example.com', shared: true, tags: ['ops'], popularity: 3 },
  tiles: [
    { name: 'Hosts', tileType: 'HOSTS', configured: true, bounds: { top: 0, left: 0, width: 304, height: 304 }, tileFilter: {}, chartVisible: true },
    { name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 304, width: 304, height: 152 }, markdown: '**hi**', nameSize: '' },
  ],
};

let server: TestServer;
let api: ApiClient;
let project: Project;
beforeEach(async () => {
  server = await startTestServer();
  api = createApiClient({ baseUrl: server.url, token: server.token });
  project = await createProject({ 'dashboards/payments.yaml': UNPINNED });
});
afterEach(async () => {
  await api.close();
  await server.close();
  await project.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
const read = (file: string): Promise<string> => readFile(join(project.root, file), 'utf8');

async function ids(): Promise<Record<string, string>> {
  const plan = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as { changes: { id: string; file: string | null; action: string }[] };
  return Object.fromEntries(plan.changes.map((c) => [c.file ?? `orphan:${c.id}`, c.action === 'orphan' ? 'orphan' : c.id]));
}

describe('dashcd pin', () => {
  it('writes the derived id into the file, keeping comments, so a renamed file is still the same dashboard', async () => {
    const derived = (await ids())['dashboards/payments.yaml'];
    expect((await dashcd('apply')).code).toBe(0);

    const pinned = await dashcd('pin');
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toBe(`pinned ${derived}  dashboards/payments.yaml\n`);
    const text = await read('dashboards/payments.yaml');
    expect(parseYaml(text).id).toBe(derived);
    expect(text).toContain('# Owned by the payments team');
    expect(text).toContain('- name: Notes # shown first');

    await rename(join(project.root, 'dashboards/payments.yaml'), join(project.root, 'dashboards/payments-overview.yaml'));
    expect(await ids()).toEqual({ 'dashboards/payments-overview.yaml': derived });
    const planned = await dashcd('plan', '--detailed-exitcode');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('1 unchanged, 0 orphans');
  });

  it('leaves files that already have an id alone', async () => {
    expect((await dashcd('pin')).code).toBe(0);
    const once = await read('dashboards/payments.yaml');
    const again = await dashcd('pin');
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe('0 files pinned; 1 already was\n');
    expect(await read('dashboards/payments.yaml')).toBe(once);
  });

  it('names each invalid file it did not pin, with its problems, and exits 3 (it said "0 files pinned", exit 0)', async () => {
    await writeFile(join(project.root, 'dashboards/bad.yaml'), 'dashboardMetadata: { name: Bad, owner: o }\ntiles:\n  - { name: N, tileType: MARKDOWN, markdown: x }\n');
    const result = await dashcd('pin');
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^pinned \S+ {2}dashboards\/payments\.yaml\n$/);
    expect(result.stderr).toContain('dashboards/bad.yaml:3:5');
    expect(result.stderr).toContain('tiles[0].bounds');
    expect(result.stderr).toContain('1 file pinned; 1 invalid file not pinned (fix, then pin again)\n');
    expect(await read('dashboards/bad.yaml')).not.toContain('id:');
  });

  it('pins the files of a project with environments, `dashcd:` member and templates kept (it pinned none of them)', async () => {
    await writeFile(join(project.root, 'dashcd.yaml'), 'environments:\n  dev:\n    values: { owner: dev@example.com }\n  prod:\n    values: { owner: prod@example.com }\n');
    const templated = UNPINNED.replace('owner: payments@example.com', 'owner: ${{ values.owner }}') + 'dashcd:\n  environments: [dev]\n';
    await writeFile(join(project.root, 'dashboards/payments.yaml'), templated);
    await writeFile(join(project.root, 'dashboards/both.yaml'), UNPINNED.replace('Payments', 'Both'));
    const result = await runDashcd(['pin'], { cwd: project.root, env: {} });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('2 files pinned\n');
    const payments = await read('dashboards/payments.yaml');
    expect(payments).toMatch(/^# Owned by the payments team\nid: [0-9a-f-]{36}\n/);
    expect(payments).toContain('owner: ${{ values.owner }}');
    expect(payments).toContain('dashcd:\n  environments: [dev]\n');
    const plan = await runDashcd(['validate'], { cwd: project.root, env: {} });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Each file once, whichever environments render it; "0 files pinned" alone read as if pin had found none.
    expect((await runDashcd(['pin'], { cwd: project.root, env: {} })).stderr).toBe('0 files pinned; 2 already were\n');
  });

  it('refuses a dashboards folder that is a committed symbolic link (exit 64), editing nothing where it leads', async () => {
    const elsewhere = join(project.root, 'elsewhere');
    await rename(join(project.root, 'dashboards'), elsewhere);
    await symlink(elsewhere, join(project.root, 'dashboards'));
    const result = await dashcd('pin');
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(`the dashboards folder dashboards: ${join(project.root, 'dashboards')} is a symbolic link; pin writes files only in real folders`);
    expect(await readFile(join(elsewhere, 'payments.yaml'), 'utf8')).toBe(UNPINNED);
  });

  it('refuses a --dir, a path, or (from a subfolder of the checkout) a dashboards folder through a committed link', async () => {
    // pin checked only the root: `pin --dir dashboards/team` and `pin dashboards/team/x.yaml` rewrote the file where
    // the link led, and so did any command run from a subfolder (the check started at the working folder).
    const elsewhere = join(project.root, 'elsewhere');
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'team.yaml'), UNPINNED);
    await symlink(elsewhere, join(project.root, 'dashboards', 'team'));
    for (const args of [['--dir', 'dashboards/team'], ['dashboards/team/team.yaml']]) {
      const result = await dashcd('pin', ...args);
      expect(result.code, args.join(' ')).toBe(64);
      expect(result.stderr).toContain(`dashboards/team: ${join(project.root, 'dashboards', 'team')} is a symbolic link; pin writes files only in real folders`);
    }
    await project.git('init', '-q');
    await mkdir(join(project.root, 'docs'));
    await rename(join(project.root, 'dashboards'), join(project.root, 'real-dashboards'));
    await symlink(join(project.root, 'real-dashboards'), join(project.root, 'dashboards'));
    const fromSubfolder = await runDashcd(['pin'], { cwd: join(project.root, 'docs') });
    expect(fromSubfolder.code).toBe(64);
    expect(fromSubfolder.stderr).toContain(`the dashboards folder ../dashboards: ${join(project.root, 'dashboards')} is a symbolic link`);
    expect(await readFile(join(elsewhere, 'team.yaml'), 'utf8')).toBe(UNPINNED);
    expect(await readFile(join(project.root, 'real-dashboards', 'payments.yaml'), 'utf8')).toBe(UNPINNED);
  });

  it('without pin, a renamed file is a new dashboard and the old one an orphan', async () => {
    expect((await dashcd('apply')).code).toBe(0);
    const before = (await ids())['dashboards/payments.yaml'];
    await rename(join(project.root, 'dashboards/payments.yaml'), join(project.root, 'dashboards/renamed.yaml'));
    const after = await ids();
    expect(after['dashboards/renamed.yaml']).not.toBe(before);
    expect(after[`orphan:${before}`]).toBe('orphan');
  });
});

describe('dashcd schema', () => {
  it('prints a JSON Schema for a dashboard file that describes its structure', async () => {
    const result = await dashcd('schema');
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout) as { $schema?: string; type?: string; properties: Record<string, { properties?: Record<string, unknown>; type?: string }>; required?: string[] };
    expect(schema.$schema).toMatch(/json-schema\.org/);
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(expect.arrayContaining(['dashboardMetadata', 'tiles']));
    expect(schema.properties.tiles?.type).toBe('array');
    expect(Object.keys(schema.properties.dashboardMetadata?.properties ?? {})).toEqual(expect.arrayContaining(['name', 'owner', 'tags']));
    // Every member a sample file uses is described (id included, so pinned files validate too).
    const sample = parseYaml(await read('dashboards/payments.yaml')) as Record<string, Record<string, unknown>>;
    for (const key of [...Object.keys(sample), 'id']) expect(schema.properties).toHaveProperty(key);
    for (const key of Object.keys(sample.dashboardMetadata ?? {})) expect(schema.properties.dashboardMetadata?.properties).toHaveProperty(key);
  });

  it('prints the schema of a platform dashboard or notebook file on request, and names the kinds for any other word', async () => {
    const notebook = JSON.parse((await dashcd('schema', 'notebook')).stdout) as { $id?: string; required?: string[] };
    expect(notebook.$id).toBe('urn:dashcd:schema:notebook-file');
    expect(notebook.required).toEqual(expect.arrayContaining(['document', 'sections']));
    expect((JSON.parse((await dashcd('schema', 'platform-dashboard')).stdout) as { $id?: string }).$id).toBe('urn:dashcd:schema:platform-dashboard-file');
    expect(await dashcd('schema', 'launchpad')).toMatchObject({ code: 64, stderr: "dashcd schema: takes one kind of file: dashboard, platform-dashboard, notebook (not 'launchpad')\n" });
    // A misspelling gets the name it is closest to, as flags and commands do (and the prefix once: it was doubled).
    expect(await dashcd('schema', 'notebok')).toMatchObject({ code: 64, stderr: "dashcd schema: takes one kind of file: dashboard, platform-dashboard, notebook (not 'notebok'; did you mean notebook?)\n" });
    expect(await dashcd('schema', 'toString')).toMatchObject({ code: 64, stderr: expect.stringContaining("(not 'toString')") });
  });
});

describe('dashcd pull', () => {
  it('writes a live dashboard as YAML (id kept, server-owned fields dropped) that plans clean', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    const pulled = await dashcd('pull', LIVE_ID);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe(`↓ pulled  ${LIVE_ID}  dashboards/made-in-the-ui.yaml\n`);
    const file = parseYaml(await read('dashboards/made-in-the-ui.yaml')) as Record<string, unknown>;
    expect(file.id).toBe(LIVE_ID);
    expect(file).not.toHaveProperty('metadata');
    expect(file.dashboardMetadata).toEqual({ name: 'Made in the UI', owner: 'ops@example.com', shared: true, tags: ['ops'] });
    expect(Object.keys(file)).toEqual(['id', 'dashboardMetadata', 'tiles']);

    const planned = await dashcd('plan', '--output', 'json');
    const changes = (JSON.parse(planned.stdout) as { changes: { id: string; action: string }[] }).changes;
    // Made outside dashcd: the first apply adopts it (adds the ownership tag), after which it plans clean.
    expect(changes.find((c) => c.id === LIVE_ID)?.action).toBe('adopt');
    expect((await dashcd('apply')).code).toBe(0);
    const after = (JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as { changes: { id: string; action: string }[] }).changes;
    expect(after.find((c) => c.id === LIVE_ID)?.action).toBe('unchanged');
  });

  it('pull --adopt marks the pulled dashboards as owned, so the next plan shows no change at all (without it: adopt, as the help says)', async () => {
    const other = { ...LIVE, id: '3c9d1e2f-2222-4a2b-8c3d-4e5f6a7b8c9d', dashboardMetadata: { ...LIVE.dashboardMetadata, name: 'Also made in the UI' } };
    await api.dashboards.put(LIVE_ID, LIVE);
    await api.dashboards.put(other.id, other);
    const pulled = await dashcd('pull', '--adopt', LIVE_ID, other.id);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe(
      `↓ pulled  ${LIVE_ID}  dashboards/made-in-the-ui.yaml  (adopted: now owned by dashcd)\n↓ pulled  ${other.id}  dashboards/also-made-in-the-ui.yaml  (adopted: now owned by dashcd)\n`,
    );
    // The project's own payments.yaml is a create either way; the two pulled dashboards are unchanged.
    const planned = await dashcd('plan', '--output', 'json');
    expect((JSON.parse(planned.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 1, adopt: 0, update: 0, unchanged: 2 });
    // The live dashboards changed by the tag alone; the file stays without it (apply adds it).
    expect((await api.dashboards.get(LIVE_ID))?.dashboardMetadata.tags).toEqual(['ops', 'managed-by:dashcd']);
    expect(await read('dashboards/made-in-the-ui.yaml')).not.toContain('managed-by');
    // Pulled again with --adopt: already owned, nothing written.
    expect((await dashcd('pull', '--adopt', LIVE_ID)).stdout).toBe(`= up to date  ${LIVE_ID}  dashboards/made-in-the-ui.yaml\n`);
  });

  it('pull without --adopt leaves ownership alone: every pulled dashboard plans as adopt', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    expect((await dashcd('pull', '--all')).code).toBe(0);
    const planned = await dashcd('plan', '--output', 'json');
    expect((JSON.parse(planned.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 1, adopt: 1, unchanged: 0 });
  });

  it('never overwrites a file with local edits without --force', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    expect((await dashcd('pull', LIVE_ID)).code).toBe(0);
    const edited = (await read('dashboards/made-in-the-ui.yaml')).replace('name: Notes', 'name: My notes');
    await project.write('dashboards/made-in-the-ui.yaml', edited);

    const refused = await dashcd('pull', LIVE_ID);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `dashcd pull: dashboards/made-in-the-ui.yaml differs from live dashboard ${LIVE_ID} (local edits?); not overwritten: 'dashcd plan' shows what differs; --force replaces it\n`,
    );
    expect(await read('dashboards/made-in-the-ui.yaml')).toBe(edited);
    // Pulled from a target --target names: the plan it points at reads that target too.
    const named = await runDashcd(['pull', '--target', server.url, LIVE_ID], { cwd: project.root, env: { DT_API_TOKEN: server.token } });
    expect(named.stderr).toContain(`not overwritten: 'dashcd plan --target ${server.url}' shows what differs`);

    const forced = await dashcd('pull', '--force', LIVE_ID);
    expect(forced.code).toBe(0);
    expect(await read('dashboards/made-in-the-ui.yaml')).not.toContain('My notes');
  });

  it('pulling an unchanged dashboard again leaves its file as it is', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    expect((await dashcd('pull', LIVE_ID)).code).toBe(0);
    const first = await read('dashboards/made-in-the-ui.yaml');
    const again = await dashcd('pull', LIVE_ID);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`= up to date  ${LIVE_ID}  dashboards/made-in-the-ui.yaml\n`);
    expect(await read('dashboards/made-in-the-ui.yaml')).toBe(first);
  });

  it('leaves a file alone that means the same as the live dashboard, comments and layout included', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    expect((await dashcd('pull', LIVE_ID)).code).toBe(0);
    const annotated = `# reviewed by ops\n${await read('dashboards/made-in-the-ui.yaml')}`;
    await project.write('dashboards/made-in-the-ui.yaml', annotated);
    const again = await dashcd('pull', LIVE_ID);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('= up to date');
    expect(await read('dashboards/made-in-the-ui.yaml')).toBe(annotated);
    // --force replaces local edits, not a file that has none: it rewrote this one, and its comment was gone.
    const forced = await dashcd('pull', '--force', LIVE_ID);
    expect(forced.stdout).toBe(`= up to date  ${LIVE_ID}  dashboards/made-in-the-ui.yaml\n`);
    expect(await read('dashboards/made-in-the-ui.yaml')).toBe(annotated);
  });

  it('never writes a new dashboard over an existing file, even one that is not a valid dashboard', async () => {
    await api.dashboards.put(LIVE_ID, LIVE);
    await project.write('dashboards/made-in-the-ui.yaml', 'work in progress: [\n');
    const pulled = await dashcd('pull', LIVE_ID);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toBe(`↓ pulled  ${LIVE_ID}  dashboards/made-in-the-ui-3c9d1e2f.yaml\n`);
    expect(await read('dashboards/made-in-the-ui.yaml')).toBe('work in progress: [\n');
  });

  it('--all pulls every dashboard except the service presets, and an unknown id is an error', async () => {
    const none = await dashcd('pull', '--all');
    expect([none.code, none.stdout]).toEqual([0, '']);
    expect(none.stderr).toMatch(/^dashcd pull: nothing to pull from .*: it holds no dashboards or notebooks \(presets aside\)\n$/);
    await api.dashboards.put(LIVE_ID, LIVE);
    const presetId = '3c9d1e2f-2222-4a2b-8c3d-4e5f6a7b8c9d';
    await api.dashboards.put(presetId, { ...LIVE, id: presetId, dashboardMetadata: { name: 'Preset', owner: 'Dynatrace', preset: true } });
    const all = await dashcd('pull', '--all');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(LIVE_ID);
    expect(all.stdout).not.toContain(presetId);

    const missing = await dashcd('pull', '3c9d1e2f-3333-4a2b-8c3d-4e5f6a7b8c9d');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`dashcd pull: 3c9d1e2f-3333-4a2b-8c3d-4e5f6a7b8c9d not found on ${server.url}; nothing written for it\n`);
  });

  it('refuses a dashboards folder or --dir that is, or goes through, a committed symbolic link (exit 64), writing nothing where it leads', async () => {
    // A pull request committing `dashboards`, or a folder below it, as a link had pull write files wherever it led.
    await api.dashboards.put(LIVE_ID, LIVE);
    const elsewhere = join(project.root, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(project.root, 'dashboards', 'team'));
    const viaDir = await dashcd('pull', '--all', '--dir', 'dashboards/team/imported');
    expect(viaDir.code).toBe(64);
    expect(viaDir.stderr).toContain(`--dir dashboards/team/imported: ${join(project.root, 'dashboards', 'team')} is a symbolic link; pull writes files only into real folders`);
    await rename(join(project.root, 'dashboards'), join(project.root, 'real-dashboards'));
    await symlink(join(project.root, 'real-dashboards'), join(project.root, 'dashboards'));
    const viaRoot = await dashcd('pull', '--all');
    expect(viaRoot.code).toBe(64);
    expect(viaRoot.stderr).toContain(`the dashboards folder dashboards: ${join(project.root, 'dashboards')} is a symbolic link`);
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await readdir(join(project.root, 'real-dashboards'))).toEqual(['payments.yaml', 'team']);
    // Run from a subfolder of the checkout (a CI job's working-directory), the same link is refused.
    await project.git('init', '-q');
    await mkdir(join(project.root, 'docs'));
    const fromSubfolder = await runDashcd(['pull', '--all'], { cwd: join(project.root, 'docs'), env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    expect(fromSubfolder.code).toBe(64);
    expect(fromSubfolder.stderr).toContain(`the dashboards folder ../dashboards: ${join(project.root, 'dashboards')} is a symbolic link`);
    expect(await readdir(join(project.root, 'real-dashboards'))).toEqual(['payments.yaml', 'team']);
    // The folder it leads to, named as it is, is pulled into.
    const real = await dashcd('pull', '--all', '--dir', 'real-dashboards');
    expect(real.code, real.stderr).toBe(0);
    expect(await readdir(join(project.root, 'real-dashboards'))).toContain('made-in-the-ui.yaml');
  });

  describe('into a subfolder of a project whose dashboards are already in dashboards/', () => {
    const MANAGED_ID = '3c9d1e2f-4444-4a2b-8c3d-4e5f6a7b8c9d';
    const managedFile = (name: string): string => `id: ${MANAGED_ID}
dashboardMetadata:
  name: ${name}
  owner: ops@example.com
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: hi
`;

    it('updates managed dashboards in their own files (saying so) and writes only new ones into --dir; plan stays valid', async () => {
      await project.write('dashboards/team/managed.yaml', managedFile('Managed'));
      expect((await dashcd('apply')).code).toBe(0);
      const paymentsId = (await ids())['dashboards/payments.yaml'] ?? '';
      await api.dashboards.put(LIVE_ID, LIVE);

      const pulled = await dashcd('pull', '--all', '--dir', 'dashboards/imported');
      expect(pulled.code, pulled.stderr).toBe(0);
      expect(pulled.stdout.split('\n').filter(Boolean).sort()).toEqual(
        [
          `= up to date  ${MANAGED_ID}  dashboards/team/managed.yaml  (already managed there: left as is, not copied into dashboards/imported)`,
          `= up to date  ${paymentsId}  dashboards/payments.yaml  (already managed there: left as is, not copied into dashboards/imported)`,
          `↓ pulled  ${LIVE_ID}  dashboards/imported/made-in-the-ui.yaml`,
        ].sort(),
      );
      expect(await readdir(join(project.root, 'dashboards/imported'))).toEqual(['made-in-the-ui.yaml']);
      // Everything is in a file now: a pull into a new folder writes none, and leaves no empty folder behind.
      const again = await dashcd('pull', '--all', '--dir', 'dashboards/again/deeper');
      expect(again.code, again.stderr).toBe(0);
      expect(await readdir(join(project.root, 'dashboards'))).not.toContain('again');
      for (const command of ['validate', 'plan', 'apply']) expect((await dashcd(command)).code, command).toBe(0);
      expect(JSON.parse((await dashcd('plan', '--output', 'json')).stdout).summary).toEqual({ create: 0, adopt: 0, update: 0, delete: 0, unchanged: 3, orphan: 0 });
    });

    it('refreshes a managed file in place with --force, and refuses it without --force when it has local edits', async () => {
      await project.write('dashboards/team/managed.yaml', managedFile('Managed'));
      expect((await dashcd('apply')).code).toBe(0);
      await project.write('dashboards/team/managed.yaml', managedFile('Edited locally'));

      const refused = await dashcd('pull', MANAGED_ID, '--dir', 'dashboards/imported');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `dashcd pull: dashboards/team/managed.yaml differs from live dashboard ${MANAGED_ID} (local edits?); not overwritten: 'dashcd plan' shows what differs; --force replaces it\n`,
      );

      const forced = await dashcd('pull', MANAGED_ID, '--dir', 'dashboards/imported', '--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout).toBe(
        `↓ pulled  ${MANAGED_ID}  dashboards/team/managed.yaml  (already managed there: updated in place, not copied into dashboards/imported)\n`,
      );
      expect(await read('dashboards/team/managed.yaml')).toContain('name: Managed\n');
      expect(await readdir(join(project.root, 'dashboards/imported'))).toEqual([]);
      expect((await dashcd('plan', '--detailed-exitcode')).code).toBe(0);
    });

    it('finds the dashboards folder next to dashcd.yaml, whatever its name, and reads that dashcd.yaml', async () => {
      await project.remove('dashboards/payments.yaml');
      await project.write('ops/dashcd.yaml', 'ownershipTag: owned-by:ops\n');
      await project.write('ops/boards/managed.yaml', managedFile('Managed'));
      const opsCli = (...argv: string[]): Promise<CliResult> => dashcd(...argv, '--dir', 'ops/boards');
      expect((await opsCli('apply')).code).toBe(0);
      expect((await api.dashboards.get(MANAGED_ID))?.dashboardMetadata.tags).toEqual(['owned-by:ops']);

      const pulled = await dashcd('pull', MANAGED_ID, '--dir', 'ops/boards/new');
      expect(pulled.code, pulled.stderr).toBe(0);
      // The ownership tag of ops/dashcd.yaml was dropped from the comparison: the file is up to date, not edited.
      expect(pulled.stdout).toContain(`= up to date  ${MANAGED_ID}  ops/boards/managed.yaml  (already managed there`);
      expect((await opsCli('plan', '--detailed-exitcode')).code).toBe(0);
    });
  });
});

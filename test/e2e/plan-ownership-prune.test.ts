import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { startProxiedTarget, type ProxiedTarget } from '../helpers/proxied-target.js';

const TAG = 'managed-by:dashcd';
const HAND_MADE_ID = '9e9e9e9e-0000-4000-8000-000000000001';
const yamlOf = (name: string): string => markdownDashboard({ name, owner: 'team@example.com', markdown: name });

let target: ProxiedTarget;
let project: Project;
beforeEach(async () => {
  target = await startProxiedTarget();
  project = await createProject({ 'dashboards/alpha.yaml': yamlOf('alpha'), 'dashboards/beta.yaml': yamlOf('beta') });
});
afterEach(async () => {
  await target.close();
  await project.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root, env: target.env });
const writes = (): string[] => target.proxy.requests.filter((r) => r.method === 'PUT' || r.method === 'DELETE').map((r) => `${r.method} ${r.path}`);
const liveNames = async (): Promise<string[]> => (await target.api.dashboards.list()).map((d) => d.name ?? '').sort();

async function applyOk(...argv: string[]): Promise<CliResult> {
  const result = await dashcd('apply', ...argv);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result;
}

type PlanJson = { changes: { action: string; id: string; patch: unknown[] | null }[]; summary: Record<string, number>; prune: { enabled: boolean; refused: string | null } };

describe('adopting a dashboard made outside dashcd', () => {
  beforeEach(async () => {
    await target.api.dashboards.put(HAND_MADE_ID, { id: HAND_MADE_ID, dashboardMetadata: { name: 'Hand made', owner: 'someone' }, tiles: [] });
  });

  it('pull then plan shows adopt (text, JSON, markdown, summary, exit 2); apply writes the tag, so deleting the file then prunes it', async () => {
    await applyOk();
    const pulled = await dashcd('pull', HAND_MADE_ID);
    expect(pulled.code, pulled.stderr).toBe(0);
    const text = await dashcd('plan', '--detailed-exitcode', 'dashboards/hand-made.yaml');
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('! adopt   Hand made  (dashboards/hand-made.yaml) — takes over a dashboard made outside dashcd');
    expect(text.stdout).toContain(`    + dashboardMetadata.tags:\n    +    - ${TAG}`);
    expect(text.stdout).toContain('Plan: 0 to create, 1 to adopt, 0 to update, 0 unchanged, orphans not checked (selective run).');

    const json = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as PlanJson;
    expect(json.changes.filter((c) => c.action === 'adopt')).toEqual([{ action: 'adopt', kind: 'dashboard', id: HAND_MADE_ID, name: 'Hand made', file: 'dashboards/hand-made.yaml', patch: [{ op: 'add', path: '/dashboardMetadata/tags', value: [TAG] }], heldInTrash: null }]);
    expect(json.summary).toEqual({ create: 0, adopt: 1, update: 0, delete: 0, unchanged: 2, orphan: 0 });
    const markdown = (await dashcd('plan', '--output', 'markdown')).stdout;
    expect(markdown).toContain('| `! adopt` | Hand made | <code>dashboards/hand-made.yaml</code> |');
    expect(markdown).toContain('<details><summary>! adopt <b>Hand made</b>');

    const adopted = await applyOk();
    expect(adopted.stdout).toMatch(new RegExp(`! adopted {2}${HAND_MADE_ID} {2}dashboards/hand-made.yaml`));
    expect((await target.api.dashboards.get(HAND_MADE_ID))?.dashboardMetadata.tags).toEqual([TAG]);
    expect((await dashcd('plan', '--detailed-exitcode')).code).toBe(0);

    await project.remove('dashboards/hand-made.yaml');
    await applyOk('--prune');
    expect(await liveNames()).toEqual(['alpha', 'beta']);
  });
});

describe('unreadable dashboard files are errors, never skipped', () => {
  for (const [title, make] of [
    ['a symlink whose target is missing', (dir: string) => symlink('nowhere.yaml', join(dir, 'beta.yaml'))],
    ['a symlink that loops', (dir: string) => symlink('beta.yaml', join(dir, 'beta.yaml'))],
    ['a .yaml symlink to a folder', async (dir: string) => {
      await mkdir(join(dir, 'folder'));
      await symlink('folder', join(dir, 'beta.yaml'));
    }],
  ] as const) {
    it(`${title}: validate and plan exit 3 naming the file, and apply --prune deletes nothing`, async () => {
      await applyOk();
      await project.remove('dashboards/beta.yaml');
      await make(join(project.root, 'dashboards'));
      const before = writes().length;
      const validated = await runDashcd(['validate'], { cwd: project.root });
      expect(validated.code).toBe(3);
      expect(validated.stdout + validated.stderr).toMatch(/dashboards\/beta\.yaml {2}cannot read the file \((a symlink to nowhere\.yaml, which does not exist|a symlink that loops|a folder, not a file)/);
      expect((await dashcd('plan')).code).toBe(3);
      expect((await dashcd('apply', '--prune')).code).toBe(3);
      expect(writes().slice(before)).toEqual([]);
      expect(await liveNames()).toEqual(['alpha', 'beta']);
    });
  }

  it('a symlink to a file outside the dashboards folder is read, with the id of the link’s own path', async () => {
    await project.write('shared/beta-source.yaml', yamlOf('beta'));
    await applyOk();
    await project.remove('dashboards/beta.yaml');
    await symlink('../shared/beta-source.yaml', join(project.root, 'dashboards/beta.yaml'));
    const plan = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as PlanJson;
    expect(plan.summary).toMatchObject({ unchanged: 2, create: 0, orphan: 0 });
  });
});

describe('deletions are visible before they happen', () => {
  it('prune: true in dashcd.yaml makes plan show delete (text, JSON, markdown, exit 2) and apply delete it', async () => {
    await applyOk();
    await project.write('dashcd.yaml', 'prune: true\n');
    await project.remove('dashboards/beta.yaml');
    const text = await dashcd('plan', '--detailed-exitcode');
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/- delete {2}beta {2}\(id [0-9a-f-]{36}, owner team@example\.com\)\n/);
    expect(text.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete, 1 unchanged, 0 orphans.');
    const json = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as PlanJson;
    expect(json.summary).toMatchObject({ delete: 1, orphan: 0 });
    expect(json.prune).toEqual({ enabled: true, refused: null });
    expect((await dashcd('plan', '--output', 'markdown')).stdout).toContain('**Merging deletes 1 dashboard** (pruning is on).');
    expect((await dashcd('plan', '--no-prune', '--detailed-exitcode')).code).toBe(0);

    const applied = await applyOk();
    expect(applied.stdout).toMatch(/- deleted {2}[0-9a-f-]{36} {2}beta\n/);
    expect(await liveNames()).toEqual(['alpha']);
  });

  it('without pruning, orphans are listed as kept, exit 0, and the markdown says merging will not delete them; plan --prune previews the delete', async () => {
    await applyOk();
    await project.remove('dashboards/beta.yaml');
    const text = await dashcd('plan', '--detailed-exitcode');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/- orphan {2}beta {2}\(id [0-9a-f-]{36}, owner team@example\.com\) — kept: pruning is off/);
    expect(text.stdout).toContain('1 unchanged, 1 orphan kept.');
    expect((await dashcd('plan', '--output', 'markdown')).stdout).toContain('Merging will **not** delete the 1 orphan listed below: pruning is off');
    const preview = await dashcd('plan', '--prune', '--detailed-exitcode');
    expect(preview.code).toBe(2);
    expect(preview.stdout).toMatch(/- delete {2}beta/);
    expect(await liveNames()).toEqual(['alpha', 'beta']);
  });

  it('the prune guards refuse in plan too, with the reason and exit 3, and apply writes nothing', async () => {
    await project.write('dashcd.yaml', 'prune: true\nmaxDelete: 1\n');
    await project.write('dashboards/gamma.yaml', yamlOf('gamma'));
    await applyOk();
    await project.remove('dashboards/beta.yaml');
    await project.remove('dashboards/gamma.yaml');
    await project.write('dashboards/alpha.yaml', yamlOf('alpha').replace('markdown: alpha', 'markdown: changed'));
    const before = writes().length;

    const planned = await dashcd('plan');
    expect(planned.code).toBe(3);
    expect(planned.stdout).toContain('✗ refusing to prune 2 dashboards: more than maxDelete 1 in dashcd.yaml; raise it there, or pass --max-delete, to allow it');
    // Its counts are what was asked: they said "Plan: … 2 to delete" under the refusal.
    expect(planned.stdout).toMatch(/^Refused plan \(apply writes nothing\): .*2 to delete/m);
    expect(planned.stdout).not.toMatch(/^Plan: /m);
    expect(planned.stderr).toContain('refusing to prune 2 dashboards');
    const json = JSON.parse((await dashcd('plan', '--output', 'json')).stdout) as PlanJson;
    expect(json.prune.refused).toMatch(/more than maxDelete 1 in dashcd.yaml/);
    expect((await dashcd('plan', '--output', 'markdown')).stdout).toContain('⛔ **Prune refused:**');
    const applied = await dashcd('apply');
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain('refusing to prune 2 dashboards');
    expect(writes().slice(before)).toEqual([]);
    expect((await dashcd('plan', '--max-delete', '2')).code).toBe(0);

    for (const name of ['alpha']) await project.remove(`dashboards/${name}.yaml`);
    const empty = await dashcd('plan', '--max-delete', '100');
    expect(empty.code).toBe(3);
    expect(empty.stdout).toContain('the dashboards folder has no dashboards');
  });

  it('plan --out writes the whole plan as JSON', async () => {
    await project.write('dashboards/gamma.yaml', yamlOf('gamma'));
    const planned = await dashcd('plan', '--output', 'markdown', '--out', 'plan.json');
    expect(planned.code, planned.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(project.root, 'plan.json'), 'utf8')) as PlanJson;
    expect(written.summary.create).toBe(3);
  });

  it('plan --out into a folder that does not exist: exit 1 naming the path and the reason, no stack', async () => {
    const planned = await dashcd('plan', '--out', 'missing/plan.json');
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain(`cannot write --out ${join(project.root, 'missing/plan.json')} (ENOENT)`);
    expect(planned.stderr).not.toContain('unexpected error');
  });
});

import { lstat, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { hostsTemplate } from '../helpers/environments.js';
import { drawnTiles, pngSize } from '../helpers/svg-shapes.js';

const ID = '0a1b2c3d-0000-4000-8000-000000000002';
const BEFORE = markdownDashboard({ name: 'Checkout', owner: 'shop@example.com', markdown: '"Checkout funnel"', id: ID });
const AFTER = `${BEFORE}  - name: Errors
    tileType: MARKDOWN
    bounds: { top: 0, left: 304, width: 304, height: 152 }
    markdown: "Error budget"
`;
const NEW = markdownDashboard({ name: 'Brand new', owner: 'shop@example.com', markdown: 'hello' });

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function plannedProject(): Promise<Project> {
  const p = await createProject({ 'dashboards/checkout.yaml': BEFORE });
  expect((await runDashcd(['apply'], { cwd: p.root })).code).toBe(0);
  await p.write('dashboards/checkout.yaml', AFTER);
  await p.write('dashboards/new.yaml', NEW);
  return p;
}

describe('plan with pictures', () => {
  it('--output html --out writes one self-contained page: summary, before/after per dashboard, diff', async () => {
    project = await plannedProject();
    const result = await runDashcd(['plan', '--output', 'html', '--out', 'plan.html'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    const html = await readFile(join(project.root, 'plan.html'), 'utf8');
    expect(html).toContain('1 to create, 1 to update');
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3\.org|127\.0\.0\.1)/);
    const svgs = html.match(/<svg [\s\S]*?<\/svg>/g) ?? [];
    expect(svgs).toHaveLength(2);
    const marks = svgs.map((svg) => drawnTiles(svg).map((t) => t.mark ?? 'same'));
    expect(marks).toContainEqual(['same', 'same', 'added']);
    // The new dashboard: one layout, captioned as new, its tiles drawn plainly.
    expect(marks).toContainEqual(['same']);
    expect(svgs.find((svg) => drawnTiles(svg).length === 1)).toContain('>new dashboard</text>');
    expect(html).toContain('<span class="add">+ tiles[1]:');
    // The added tile as its file writes it: none of the defaults the comparison fills in (issue 32 #13).
    const added = html.slice(html.indexOf('<span class="add">+ tiles[1]:'), html.indexOf('</pre>', html.indexOf('<span class="add">+ tiles[1]:')));
    expect(added).toContain('+    markdown: Error budget');
    expect(added).not.toMatch(/configured|isAutoRefreshDisabled/);
  });

  it('--preview-dir writes before/after PNGs and the markdown plan links them under --preview-url', async () => {
    project = await plannedProject();
    const result = await runDashcd(['plan', '--output', 'markdown', '--preview-dir', 'pics', '--preview-url', 'https://ci.example/run/7'], { cwd: project.root });
    expect(result.code).toBe(0);
    const files = (await readdir(join(project.root, 'pics'))).sort();
    expect(files).toEqual(['dashboards_checkout.yaml.png', 'dashboards_new.yaml.png']);
    const png = await readFile(join(project.root, 'pics', files[0] ?? ''));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(result.stdout).toContain('- [Checkout](https://ci.example/run/7/dashboards_checkout.yaml.png)');
    expect(result.stdout).toContain('- [Brand new](https://ci.example/run/7/dashboards_new.yaml.png)');
  });

  it('--preview-dir refuses a folder that is a symbolic link, a path through one, and a dangling one, by name (exit 64), writing nothing where they lead', async () => {
    // A pull request committing `pics`, or `out` of `out/pics`, as a link.
    project = await plannedProject();
    const root = project.root;
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(root, 'pics'));
    await symlink(elsewhere, join(root, 'out'));
    await symlink(join(root, 'nowhere'), join(root, 'dangling'));
    // A folder of the working folder whose name starts with `..` is checked too.
    await symlink(elsewhere, join(root, '..pics'));
    for (const [dir, link] of [['pics', 'pics'], ['out/pics', 'out'], ['dangling', 'dangling'], ['..pics', '..pics']]) {
      const result = await runDashcd(['plan', '--preview-dir', dir ?? ''], { cwd: root });
      expect(result.code, dir).toBe(64);
      expect(result.stderr).toContain(`--preview-dir: ${join(root, link ?? '')} is a symbolic link; name a folder of its own`);
    }
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('--out refuses a folder on the way that is a symbolic link, by name (exit 64), writing nothing where it leads; a committed link as the file itself is replaced, not followed', async () => {
    // A pull request committing `reports` as a link had the plan written wherever it led (--preview-dir refused it).
    project = await plannedProject();
    const root = project.root;
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(root, 'reports'));
    for (const out of ['reports/plan.md', 'reports/deeper/plan.json']) {
      const result = await runDashcd(['plan', '--out', out], { cwd: root });
      expect(result.code, out).toBe(64);
      expect(result.stderr).toContain(`--out ${out}: ${join(root, 'reports')} is a symbolic link; name a file in a folder of its own`);
    }
    await symlink(join(elsewhere, 'target.md'), join(root, 'plan.md'));
    expect((await runDashcd(['plan', '--out', 'plan.md'], { cwd: root })).code).toBe(0);
    expect(await readdir(elsewhere)).toEqual([]);
    expect((await lstat(join(root, 'plan.md'))).isSymbolicLink()).toBe(false);
  });

  it('--out is repeatable: each file gets the whole plan in its extension\'s format; stdout keeps --output', async () => {
    project = await plannedProject();
    const outs = ['plan.json', 'plan.html', 'plan.md', 'plan.txt'].flatMap((f) => ['--out', f]);
    const result = await runDashcd(['plan', '--output', 'markdown', ...outs], { cwd: project.root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('### dashcd plan');
    const read = (f: string): Promise<string> => readFile(join(project!.root, f), 'utf8');
    const json = JSON.parse(await read('plan.json')) as { summary: { create: number; update: number } };
    expect(json.summary).toMatchObject({ create: 1, update: 1 });
    expect(await read('plan.html')).toMatch(/^<!DOCTYPE html>/i);
    expect(await read('plan.md')).toContain('<summary>~ update <b>Checkout</b>');
    expect(await read('plan.txt')).toContain('~ update');
    expect(await read('plan.txt')).not.toContain('\u001b[');
  });

  it('--out with another extension: exit 64 naming the allowed ones, nothing written', async () => {
    project = await plannedProject();
    const result = await runDashcd(['plan', '--out', 'plan.yaml'], { cwd: project.root });
    expect(result).toMatchObject({ code: 64, stdout: '' });
    expect(result.stderr).toContain('--out plan.yaml: the extension picks the format; use one of .json, .html, .md, .txt');
    await expect(readdir(project.root)).resolves.not.toContain('plan.yaml');
  });

  it('--output html without an .html --out prints the page to stdout', async () => {
    project = await plannedProject();
    const result = await runDashcd(['plan', '--output', 'html', '--out', 'plan.json'], { cwd: project.root });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^<!DOCTYPE html>/i);
    expect(result.stdout).toContain('1 to create, 1 to update');
  });

  it('--preview-url without --preview-dir is a usage error', async () => {
    project = await createProject({ 'dashboards/new.yaml': NEW });
    expect(await runDashcd(['plan', '--preview-url', 'https://x'], { cwd: project.root })).toMatchObject({ code: 64, stderr: expect.stringContaining('--preview-url needs --preview-dir') });
  });
});

describe('plan with pictures over environments', () => {
  const CONFIG = 'environments:\n  dev:\n    values: { note: Dev notes }\n  prod:\n    values: { note: Prod notes }\n';
  const GROWN = `${hostsTemplate()}  - name: Errors
    tileType: MARKDOWN
    bounds: { top: 0, left: 304, width: 304, height: 152 }
    markdown: "Error budget"
`;

  /** Two embedded environments, both applied; then a tile added to hosts.yaml and a new file: per environment one update, one create. */
  async function environmentsProject(): Promise<Project> {
    const p = await createProject({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': hostsTemplate() });
    expect((await runDashcd(['apply', '--all-envs'], { cwd: p.root })).code).toBe(0);
    await p.write('dashboards/hosts.yaml', GROWN);
    await p.write('dashboards/new.yaml', NEW);
    return p;
  }

  it('--output html --out plan.html: one section per environment, each with its pictures as that environment gets them', async () => {
    project = await environmentsProject();
    const result = await runDashcd(['plan', '--output', 'html', '--out', 'plan.html', '--out', 'plan.json'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    const html = await readFile(join(project.root, 'plan.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<h1>dashcd plan for 2 environments</h1>');
    const sections = [...html.matchAll(/<section data-env="([a-z]+)">([\s\S]*?)(?=<section data-env=|<\/body>)/g)];
    expect(sections.map((m) => m[1])).toEqual(['dev', 'prod']);
    for (const [, env = '', body = ''] of sections) {
      expect(body).toContain('1 to create, 1 to update');
      const svgs = body.match(/<svg [\s\S]*?<\/svg>/g) ?? [];
      expect(svgs).toHaveLength(2);
      const hosts = svgs.find((svg) => svg.includes(`>Hosts ${env}</text>`)) ?? '';
      // Before: the one live tile; after: it and the added one, drawn with this environment's values.
      expect(drawnTiles(hosts).map((t) => [t.mark ?? 'same', ...t.texts.slice(0, 2)])).toEqual([
        ['same', 'Notes', `${env === 'dev' ? 'Dev' : 'Prod'} notes`],
        ['same', 'Notes', `${env === 'dev' ? 'Dev' : 'Prod'} notes`],
        ['added', 'Errors', 'Error budget'],
      ]);
    }
    const json = JSON.parse(await readFile(join(project.root, 'plan.json'), 'utf8')) as { environments: { name: string; summary: { create: number; update: number } }[] };
    expect(json.environments.map((e) => [e.name, e.summary.create, e.summary.update])).toEqual([['dev', 1, 1], ['prod', 1, 1]]);
  });

  it('--preview-dir writes one folder per environment; the markdown plan links each under --preview-url', async () => {
    project = await environmentsProject();
    const result = await runDashcd(['plan', '--output', 'markdown', '--preview-dir', 'pics', '--preview-url', 'https://ci.example/run/7'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(join(project.root, 'pics'))).sort()).toEqual(['dev', 'prod']);
    for (const env of ['dev', 'prod']) {
      const files = (await readdir(join(project.root, 'pics', env))).sort();
      expect(files).toEqual(['dashboards_hosts.yaml.png', 'dashboards_new.yaml.png']);
      expect(pngSize(await readFile(join(project.root, 'pics', env, files[0] ?? ''))).width).toBe(1600);
      expect(result.stdout).toContain(`**Layout previews: \`${env}\`**`);
      expect(result.stdout).toContain(`- [Hosts ${env}](https://ci.example/run/7/${env}/dashboards_hosts.yaml.png)`);
      expect(result.stdout).toContain(`- [Brand new](https://ci.example/run/7/${env}/dashboards_new.yaml.png)`);
    }
  });

  it('--preview-dir refuses an environment\'s folder in it that is a symbolic link, writing nothing where it leads', async () => {
    project = await environmentsProject();
    const elsewhere = join(project.root, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(join(project.root, 'pics'));
    await symlink(elsewhere, join(project.root, 'pics', 'dev'));
    const result = await runDashcd(['plan', '--preview-dir', 'pics'], { cwd: project.root });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(`--preview-dir: ${join(project.root, 'pics', 'dev')} is a symbolic link`);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('--output html without an .html --out prints the page; problems go to stderr, never into the page', async () => {
    project = await environmentsProject();
    await project.write('dashboards/bad.yaml', 'dashboardMetadata: { name: Bad, owner: ops }\ntiles:\n  - tileType: NOPE\n');
    const result = await runDashcd(['plan', '--output', 'html'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/i);
    expect(result.stdout).toContain('problem');
    // The problem lines go to stderr as text; the page shows its environment's problems escaped, never a raw line.
    expect(result.stdout).not.toContain('unknown value "NOPE"');
    expect(result.stdout).toContain('unknown value &quot;NOPE&quot;');
    expect(result.stderr).toContain('dashboards/bad.yaml');
  });
});

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { drawnTiles } from '../helpers/svg-shapes.js';

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
    expect(marks).toContainEqual(['added']);
    expect(html).toContain('<span class="add">+ tiles[1]:');
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

  it('with environments in dashcd.yaml, --out/--preview-dir/--output html exit 64 instead of being ignored', async () => {
    project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n', 'dashboards/new.yaml': NEW });
    const result = await runDashcd(['plan', '--output', 'html', '--out', 'plan.json'], { cwd: project.root });
    expect(result).toMatchObject({ code: 64, stdout: '' });
    expect(result.stderr).toContain('--out, --output html: not available yet when dashcd.yaml declares environments');
  });

  it('--preview-url without --preview-dir is a usage error', async () => {
    project = await createProject({ 'dashboards/new.yaml': NEW });
    expect(await runDashcd(['plan', '--preview-url', 'https://x'], { cwd: project.root })).toMatchObject({ code: 64, stderr: expect.stringContaining('--preview-url needs --preview-dir') });
  });
});

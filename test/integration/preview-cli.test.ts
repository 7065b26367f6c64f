import { mkdir, readdir, readFile, stat, symlink, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markdownDashboard } from '../helpers/dashboards.js';
import { createProject, runDashcd, startDashcdChild, type Project } from '../helpers/cli.js';
import { drawnTiles, pngSize, svgSize } from '../helpers/svg-shapes.js';

const ID = '0a1b2c3d-0000-4000-8000-000000000001';
const FILE = markdownDashboard({ name: 'Checkout', owner: 'shop@example.com', markdown: '"## Checkout funnel"', id: ID });
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

describe('dashcd preview', () => {
  it('writes an SVG per file into --out and prints its path', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE });
    const result = await runDashcd(['preview', 'dashboards/checkout.yaml', '--out', 'pics'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const path = join(project.root, 'pics', 'checkout.svg');
    expect(result.stdout).toBe(`${path}\n`);
    const svg = await readFile(path, 'utf8');
    expect(drawnTiles(svg).map((t) => t.texts)).toEqual([['Notes', 'Checkout funnel', 'markdown']]);
  });

  it('keeps the default previews/ it makes out of git with a .gitignore; a folder --out names, or one that was there, gets none', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE });
    expect((await runDashcd(['preview', 'dashboards/checkout.yaml'], { cwd: project.root })).code).toBe(0);
    expect((await readdir(join(project.root, 'previews'))).sort()).toEqual(['.gitignore', 'checkout.svg']);
    expect(await readFile(join(project.root, 'previews', '.gitignore'), 'utf8')).toBe('*\n');
    expect((await runDashcd(['preview', 'dashboards/checkout.yaml', '--out', 'pics'], { cwd: project.root })).code).toBe(0);
    expect(await readdir(join(project.root, 'pics'))).toEqual(['checkout.svg']);
    await mkdir(join(project.root, 'kept', 'previews'), { recursive: true });
    expect((await runDashcd(['preview', '../dashboards/checkout.yaml'], { cwd: join(project.root, 'kept') })).code).toBe(0);
    expect(await readdir(join(project.root, 'kept', 'previews'))).toEqual(['checkout.svg']);
    // Spelt another way, the default folder is the default folder.
    expect((await runDashcd(['preview', '../dashboards/checkout.yaml', '--out', './other/../made'], { cwd: join(project.root, 'kept') })).code).toBe(0);
    expect(await readdir(join(project.root, 'kept', 'made'))).toEqual(['checkout.svg']);
    await mkdir(join(project.root, 'third'));
    expect((await runDashcd(['preview', '../dashboards/checkout.yaml', '--out', './previews'], { cwd: join(project.root, 'third') })).code).toBe(0);
    expect((await readdir(join(project.root, 'third', 'previews'))).sort()).toEqual(['.gitignore', 'checkout.svg']);
  });

  it('a folder with no dashboards makes no folder; a dangling previews link is refused by name (it was an EEXIST, exit 1)', async () => {
    project = await createProject({ 'empty/readme.md': 'nothing to draw' });
    expect((await runDashcd(['preview', 'empty'], { cwd: project.root })).code).toBe(0);
    expect(await readdir(project.root)).not.toContain('previews');
    await symlink(join(project.root, 'nowhere'), join(project.root, 'previews'));
    const dangling = await runDashcd(['preview', 'empty'], { cwd: project.root });
    expect(dangling.code).toBe(64);
    expect(dangling.stderr).toContain(`--out previews: ${join(project.root, 'previews')} is a symbolic link`);
  });

  it('renders PNG without a browser, at twice the SVG size (sharp when shown at the SVG\'s 800 px)', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE });
    const result = await runDashcd(['preview', '--format', 'png', 'dashboards/checkout.yaml'], { cwd: project.root });
    expect(result.code).toBe(0);
    const png = await readFile(join(project.root, 'previews', 'checkout.png'));
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    const svg = (await runDashcd(['preview', 'dashboards/checkout.yaml'], { cwd: project.root }), await readFile(join(project.root, 'previews', 'checkout.svg'), 'utf8'));
    expect(pngSize(png)).toEqual({ width: 2 * svgSize(svg).width, height: 2 * svgSize(svg).height });
  });

  it('writes a self-contained HTML page (no script, no external address)', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE });
    expect((await runDashcd(['preview', '--format', 'html', 'dashboards/checkout.yaml'], { cwd: project.root })).code).toBe(0);
    const html = await readFile(join(project.root, 'previews', 'checkout.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg ');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('draws a live dashboard by id from the target', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE });
    expect((await runDashcd(['apply'], { cwd: project.root })).code).toBe(0);
    const result = await runDashcd(['preview', ID], { cwd: project.root });
    expect(result.code).toBe(0);
    expect(await readFile(join(project.root, 'previews', `${ID}.svg`), 'utf8')).toContain('>Checkout</text>');
  });

  it('draws a live platform dashboard by its document id from the target', async () => {
    const document = 'document: { kind: dashboard, name: Checkout app, id: checkout-app }\nversion: 21\ntiles: { "0": { type: markdown, content: "## Funnel" } }\nlayouts: { "0": { x: 0, y: 0, w: 24, h: 2 } }\n';
    project = await createProject({ 'dashboards/checkout-app.yaml': document });
    expect((await runDashcd(['apply'], { cwd: project.root })).code).toBe(0);
    const result = await runDashcd(['preview', 'checkout-app'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const svg = await readFile(join(project.root, 'previews', 'checkout-app.svg'), 'utf8');
    expect(svg).toContain('Checkout app');
    expect(svg).toContain('Funnel');
    expect(await runDashcd(['preview', 'no-such-document'], { cwd: project.root })).toMatchObject({ code: 1, stderr: expect.stringContaining('no-such-document not found on') });
  });

  it('bad input is a clear error with the right exit code', async () => {
    project = await createProject({ 'dashboards/bad.yaml': 'tiles: [unclosed' });
    expect(await runDashcd(['preview', 'nope.yaml'], { cwd: project.root })).toMatchObject({ code: 64, stderr: expect.stringContaining("'nope.yaml' is neither a file, a folder nor a dashboard or document id") });
    expect(await runDashcd(['preview', '--format', 'gif', 'dashboards/bad.yaml'], { cwd: project.root })).toMatchObject({ code: 64 });
    expect(await runDashcd(['preview', 'dashboards/bad.yaml'], { cwd: project.root })).toMatchObject({ code: 3, stderr: expect.stringContaining('dashboards/bad.yaml: not a readable dashboard file') });
  });

  it("reads a file to draw as validate does: bounded in size and aliases (a pull request's job may draw a committer's file)", async () => {
    const aliases = Array.from({ length: 1001 }, (_, i) => `a${i}: &x${i} ${i}\nb${i}: *x${i}`).join('\n');
    project = await createProject({ 'dashboards/huge.yaml': '', 'dashboards/aliases.yaml': `${aliases}\ntiles: []\n` });
    await truncate(join(project.root, 'dashboards/huge.yaml'), 5 * 1024 * 1024);
    expect(await runDashcd(['preview', 'dashboards/huge.yaml'], { cwd: project.root })).toMatchObject({ code: 3, stderr: expect.stringContaining('dashboards/huge.yaml: not a readable dashboard file (5.0 MiB: a file is read up to 4 MiB)') });
    expect(await runDashcd(['preview', 'dashboards/aliases.yaml'], { cwd: project.root })).toMatchObject({ code: 3, stderr: expect.stringContaining('more than 1000 aliases in one file') });
  });

  it('--env draws a file as that environment renders it; an undeclared name is exit 64 listing the declared ones', async () => {
    const config = 'environments:\n  dev:\n    values: { title: Dev funnel }\n  prod:\n    values: { title: Prod funnel }\n';
    const file = markdownDashboard({ name: 'Checkout', owner: 'shop@example.com', markdown: '"${{ values.title }}"' });
    project = await createProject({ 'dashcd.yaml': config, 'dashboards/checkout.yaml': file });
    const drawn = async (env: string): Promise<string[][]> => {
      const result = await runDashcd(['preview', '--env', env, '--out', env, 'dashboards/checkout.yaml'], { cwd: project!.root });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      return drawnTiles(await readFile(join(project!.root, env, 'checkout.svg'), 'utf8')).map((t) => t.texts);
    };
    expect(await drawn('dev')).toEqual([['Notes', 'Dev funnel', 'markdown']]);
    expect(await drawn('prod')).toEqual([['Notes', 'Prod funnel', 'markdown']]);
    const unknown = await runDashcd(['preview', '--env', 'qa', 'dashboards/checkout.yaml'], { cwd: project.root });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('--env qa: no such environment; declared:');
    expect(unknown.stderr).toMatch(/dev\s+embedded \/e\/dev/);
  });

  it('without --env draws templated files as the only environment renders them; with several it asks for --env (exit 64 listing them)', async () => {
    const file = markdownDashboard({ name: 'Checkout ${{ env.name }}', owner: 'shop@example.com', markdown: '"[Hosts](#dashboard;id=${{ dashboard(\\"hosts.yaml\\") }})"' });
    const hosts = markdownDashboard({ name: 'Hosts', owner: 'shop@example.com', markdown: 'hosts', id: ID });
    project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n', 'dashboards/checkout.yaml': file, 'dashboards/hosts.yaml': hosts });
    const one = await runDashcd(['preview', 'dashboards/checkout.yaml'], { cwd: project.root });
    expect(one).toMatchObject({ code: 0, stderr: '' });
    const svg = await readFile(join(project.root, 'previews', 'checkout.svg'), 'utf8');
    expect(svg).toContain('>Checkout dev</text>');
    expect(svg).not.toContain('${{');
    expect(drawnTiles(svg).map((t) => t.texts)).toEqual([['Notes', `Hosts`, 'markdown']]);

    await project.write('dashcd.yaml', 'environments:\n  dev:\n  prod:\n');
    const several = await runDashcd(['preview', 'dashboards/checkout.yaml', 'dashboards/hosts.yaml'], { cwd: project.root });
    expect(several.code).toBe(64);
    expect(several.stderr).toContain('dashboards/checkout.yaml uses templates, so it looks different in each environment: choose one with --env NAME; declared:');
    expect(several.stderr).toMatch(/prod\s+embedded \/e\/prod/);
    // A file without templates looks the same everywhere: drawn as written.
    expect(await runDashcd(['preview', 'dashboards/hosts.yaml'], { cwd: project.root })).toMatchObject({ code: 0, stderr: '' });
  });

  it('with environments in dashcd.yaml an id needs --env, as pull and trash do (exit 64 listing them); --env reads it from that environment; files need none', async () => {
    project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n  prod:\n', 'dashboards/checkout.yaml': FILE });
    expect((await runDashcd(['apply', '--env', 'dev'], { cwd: project.root })).code).toBe(0);
    const refused = await runDashcd(['preview', 'dashboards/checkout.yaml', ID], { cwd: project.root });
    expect(refused).toMatchObject({ code: 64, stdout: '' });
    expect(refused.stderr).toContain('preview acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:\n');
    expect(refused.stderr).toMatch(/dev\s+embedded \/e\/dev\n\s+prod\s+embedded \/e\/prod/);
    // The very message pull gives, and nothing drawn: the refusal comes before any picture is written.
    const pull = await runDashcd(['pull', ID], { cwd: project.root });
    expect(refused.stderr).toBe(pull.stderr.replaceAll('pull', 'preview'));
    expect(await stat(join(project.root, 'previews')).catch(() => undefined)).toBeUndefined();
    expect(await runDashcd(['preview', '--target', 'http://127.0.0.1:9', ID], { cwd: project.root })).toMatchObject({ code: 64, stderr: expect.stringContaining('--target and environments exclude each other') });

    const dev = await runDashcd(['preview', '--env', 'dev', ID], { cwd: project.root });
    expect(dev).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(project.root, 'previews', `${ID}.svg`), 'utf8')).toContain('>Checkout</text>');
    expect(await runDashcd(['preview', '--env', 'prod', ID], { cwd: project.root })).toMatchObject({ code: 1, stderr: expect.stringContaining(`dashboard ${ID} not found on /e/prod of the embedded store`) });
    expect(await runDashcd(['preview', '--out', 'files', 'dashboards/checkout.yaml'], { cwd: project.root })).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses an --out that is, or holds, a committed symbolic link (exit 64) before drawing anything, writing nothing where it leads', async () => {
    // Pictures are named after committed files: a committed `previews` (or `previews/sub`) link had them written there.
    project = await createProject({ 'dashboards/checkout.yaml': FILE, 'dashboards/sub/deeper.yaml': FILE.replace(ID, '0a1b2c3d-0000-4000-8000-000000000002') });
    const elsewhere = join(project.root, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(project.root, 'previews'));
    const whole = await runDashcd(['preview', 'dashboards'], { cwd: project.root });
    expect(whole.code).toBe(64);
    expect(whole.stderr).toContain(`--out previews: ${join(project.root, 'previews')} is a symbolic link; name a folder of its own`);
    await unlink(join(project.root, 'previews'));
    await mkdir(join(project.root, 'previews'));
    await symlink(elsewhere, join(project.root, 'previews', 'sub'));
    const below = await runDashcd(['preview', '--format', 'html', 'dashboards'], { cwd: project.root });
    expect(below.code).toBe(64);
    expect(below.stderr).toContain(`--out previews: ${join(project.root, 'previews', 'sub')} is a symbolic link`);
    expect(await readdir(elsewhere)).toEqual([]);
    // Checked before the first picture: the one that would have gone into a real folder is not written either.
    expect(await readdir(join(project.root, 'previews'))).toEqual(['sub']);
  });

  it('draws every dashboard file of a folder, as plan and validate read it', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': FILE, 'dashboards/team/hosts.yaml': markdownDashboard({ name: 'Hosts', owner: 'o', markdown: 'hosts' }) });
    const result = await runDashcd(['preview', 'dashboards'], { cwd: project.root });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${join(project.root, 'previews', 'checkout.svg')}\n${join(project.root, 'previews', 'team', 'hosts.svg')}\n`);
    expect(await readFile(join(project.root, 'previews', 'team', 'hosts.svg'), 'utf8')).toContain('>Hosts</text>');
  });

  it('names an embedded environment of a running server by its address, with no stray space', async () => {
    project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n', 'dashboards/checkout.yaml': FILE });
    const missing = '0a1b2c3d-0000-4000-8000-000000000009';
    const inProcess = await runDashcd(['preview', '--env', 'dev', missing], { cwd: project.root });
    expect(inProcess.stderr).toContain(`dashboard ${missing} not found on /e/dev of the embedded store ${join(project.root, '.dashcd')}`);
    const serve = await startDashcdChild(['serve', '--port', '0'], { cwd: project.root, ready: /dashcd serving (\S+)\/e\/local/ });
    try {
      const base = /dashcd serving (\S+)\/e\/local/.exec(serve.output())?.[1];
      const owned = await runDashcd(['preview', '--env', 'dev', missing], { cwd: project.root });
      expect(owned.stderr).toContain(`dashboard ${missing} not found on ${base}/e/dev\n`);
    } finally {
      await serve.stop();
    }
  });
});


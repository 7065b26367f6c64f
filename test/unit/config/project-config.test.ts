import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadProjectConfig, MAX_PROJECT_CONFIG_BYTES, parseProjectConfig } from '../../../src/config/project-config.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let root: string;
tempDirPerTest('dashcd-project-config-', (created) => (root = created));

describe('loadProjectConfig', () => {
  it('returns the defaults and no file when there is no dashcd.yaml', async () => {
    const result = await loadProjectConfig(root);
    expect(result).toEqual({ config: { ignore: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, prune: false }, diagnostics: [] });
  });

  it('reads ignore pointers, the ownership tag and maxDelete', async () => {
    const file = join(root, 'dashcd.yaml');
    await writeFile(file, 'ignore:\n  - /tiles/*/bounds\n  - /dashboardMetadata/shared\nownershipTag: team:web\nmaxDelete: 10\n');
    const result = await loadProjectConfig(root);
    expect(result).toEqual({
      config: { ignore: ['/tiles/*/bounds', '/dashboardMetadata/shared'], ownershipTag: 'team:web', maxDelete: 10, prune: false },
      file,
      source: 'ignore:\n  - /tiles/*/bounds\n  - /dashboardMetadata/shared\nownershipTag: team:web\nmaxDelete: 10\n',
      diagnostics: [],
    });
  });

  it('parses the same text once for every reader (a daemon reads it at each pass of each environment), and a changed file again', async () => {
    const file = join(root, 'dashcd.yaml');
    await writeFile(file, 'ownershipTag: team:web\nignore: [/tiles/*/bounds]\n');
    const first = await loadProjectConfig(root);
    const again = await loadProjectConfig(root);
    expect(again.config).toBe(first.config);
    // Shared, so no reader can change it under the others.
    expect(Object.isFrozen(first.config) && Object.isFrozen(first.config.ignore)).toBe(true);
    await writeFile(file, 'ownershipTag: team:api\nignore: [/tiles/*/bounds]\n');
    const changed = await loadProjectConfig(root);
    expect(changed.config).not.toBe(first.config);
    expect(changed.config.ownershipTag).toBe('team:api');
  });

  it('keeps the last 8 files read: a ninth makes the least recently read one parse again', async () => {
    const roots = Array.from({ length: 9 }, (_, i) => join(root, `p${i}`));
    for (const dir of roots) {
      await mkdir(dir);
      await writeFile(join(dir, 'dashcd.yaml'), `ownershipTag: ${basename(dir)}\n`);
    }
    const first = [];
    for (const dir of roots.slice(0, 8)) first.push(await loadProjectConfig(dir));
    // p0 read again is now the most recent: p1 is the one the ninth file pushes out.
    expect((await loadProjectConfig(roots[0] as string)).config).toBe(first[0]?.config);
    await loadProjectConfig(roots[8] as string);
    expect((await loadProjectConfig(roots[0] as string)).config).toBe(first[0]?.config);
    expect((await loadProjectConfig(roots[2] as string)).config).toBe(first[2]?.config);
    const p1 = await loadProjectConfig(roots[1] as string);
    expect(p1.config).not.toBe(first[1]?.config);
    expect(p1.config).toEqual(first[1]?.config);
  });

  it('accepts dashcd.yml too', async () => {
    await writeFile(join(root, 'dashcd.yml'), 'ownershipTag: x\n');
    expect((await loadProjectConfig(root)).config.ownershipTag).toBe('x');
  });

  it('treats an empty file as the defaults', async () => {
    await writeFile(join(root, 'dashcd.yaml'), '# nothing yet\n');
    expect((await loadProjectConfig(root)).diagnostics).toEqual([]);
  });

  it('reports a dashcd.yaml past 2 MiB by its size, unread, as a problem of the file (a committer could make one the daemon parses for seconds)', async () => {
    const file = join(root, 'dashcd.yaml');
    const ignore = Array.from({ length: 100_000 }, (_, i) => `  - /tiles/${i}/bounds\n`).join('');
    await writeFile(file, `ignore:\n${ignore}`);
    const result = await loadProjectConfig(root);
    expect(result.config).toEqual({ ignore: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, prune: false });
    expect(result.diagnostics).toEqual([{ file, line: 0, col: 0, path: '', message: `cannot read: it is ${Buffer.byteLength(`ignore:\n${ignore}`)} bytes; a dashcd.yaml is read up to ${MAX_PROJECT_CONFIG_BYTES / (1024 * 1024)} MiB` }]);
  });

  it('reads only a regular file: a FIFO named dashcd.yaml is a problem, never a wait for a writer', async () => {
    execFileSync('mkfifo', [join(root, 'dashcd.yaml')]);
    const result = await loadProjectConfig(root);
    expect(result.diagnostics.map((d) => d.message)).toEqual(['cannot read: not a regular file (a directory, a device, a FIFO or a socket)']);
  });

  it('never reads a dashcd.yaml that links out of the project: its problem would quote what the link leads to (a runner\'s secrets)', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'dashcd-outside-'));
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, 'environ'), 'GH_TOKEN=ghp_secret123456\n');
    const project = join(root, 'project');
    await mkdir(project);
    await symlink(join(outside, 'environ'), join(project, 'dashcd.yaml'));
    const result = await loadProjectConfig(project);
    expect(result.config).toEqual({ ignore: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, prune: false });
    expect(result.diagnostics.map((d) => d.message)).toEqual(['cannot read: it is a symbolic link to a file outside the project; dashcd reads only a dashcd.yaml within it']);
    expect(JSON.stringify(result)).not.toContain('ghp_secret');
    // Through a relative link and a folder link alike.
    await rm(join(project, 'dashcd.yaml'));
    await symlink(relative(project, join(outside, 'environ')), join(project, 'dashcd.yaml'));
    expect((await loadProjectConfig(project)).diagnostics.map((d) => d.message)).toEqual(['cannot read: it is a symbolic link to a file outside the project; dashcd reads only a dashcd.yaml within it']);
    await symlink(outside, join(project, 'shared'));
    await rm(join(project, 'dashcd.yaml'));
    await symlink(join('shared', 'environ'), join(project, 'dashcd.yaml'));
    expect((await loadProjectConfig(project)).diagnostics.map((d) => d.message)).toEqual(['cannot read: it is a symbolic link to a file outside the project; dashcd reads only a dashcd.yaml within it']);
  });

  it('reads a dashcd.yaml that links to a file within the project as that file', async () => {
    await mkdir(join(root, 'config'));
    await writeFile(join(root, 'config', 'dashcd.yaml'), 'maxDelete: 3\n');
    await symlink(join('config', 'dashcd.yaml'), join(root, 'dashcd.yaml'));
    const result = await loadProjectConfig(root);
    expect(result.diagnostics).toEqual([]);
    expect(result.config.maxDelete).toBe(3);
  });
});

describe('parseProjectConfig diagnostics', () => {
  it('reports a bad pointer at its line and column', () => {
    const { diagnostics } = parseProjectConfig('ignore:\n  - /tiles/*/bounds\n  - tiles/name\n', 'dashcd.yaml');
    expect(diagnostics).toEqual([
      { file: 'dashcd.yaml', line: 3, col: 5, path: 'ignore[1]', message: 'Not a JSON Pointer: must start with "/", as in /tiles/*/bounds' },
    ]);
  });

  it('reports an unknown key at the key, with the key it most likely meant', () => {
    const { diagnostics } = parseProjectConfig('ownershipTag: a\nignores:\n  - /x\n', 'dashcd.yaml');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 2, col: 1, path: 'ignores', message: 'unknown key; did you mean ignore?' });
    expect(parseProjectConfig('enviroments:\n  dev:\n', 'f').diagnostics.map((d) => d.message)).toEqual(['unknown key; did you mean environments?']);
    // The values and groups a misspelt environments: leaves without environments are that same mistake, said once.
    expect(parseProjectConfig('values:\n  x: 1\nenviroments:\n  dev:\ngroups:\n  g: [dev]\n', 'f').diagnostics.map((d) => d.message)).toEqual(['unknown key; did you mean environments?']);
    // Without the misspelling they are the file's own mistake.
    expect(parseProjectConfig('values:\n  x: 1\nextra: 1\n', 'f').diagnostics.map((d) => d.message)).toEqual(['values need environments: declare them in this file first', expect.stringContaining('unknown key')]);
  });

  it('names the keys known where the unknown one is, when none is close: the top level’s, or an environment’s', () => {
    expect(parseProjectConfig('zzzzzz: 1\n', 'f').diagnostics.map((d) => d.message)).toEqual([
      'unknown key (known here: ignore, ownershipTag, maxDelete, prune, strict, environments, groups, values)',
    ]);
    const nested = parseProjectConfig('environments:\n  dev:\n    tokenEnvv: X\n    target: https://a.example.com\n    tokenEnv: T\n', 'f').diagnostics;
    expect(nested.map((d) => `${d.line}:${d.col} ${d.path}: ${d.message}`)).toEqual(['3:5 environments.dev.tokenEnvv: unknown key; did you mean tokenEnv?']);
    const far = parseProjectConfig('environments:\n  dev:\n    zzzzzz: 1\n', 'f').diagnostics.map((d) => d.message);
    expect(far).toEqual([expect.stringMatching(/^unknown key \(known here: .*target.*tokenEnv.*values/)]);
    expect(far[0]).not.toContain('ownershipTag');
  });

  it('reports every problem, not only the first, in file order', () => {
    const { diagnostics } = parseProjectConfig('maxDelete: -1\nownershipTag: " x"\nignore: [a, /ok, "/b~"]\n', 'f');
    expect(diagnostics.map((d) => `${d.line}:${d.col}`)).toEqual(['1:12', '2:15', '3:10', '3:18']);
  });

  it('reports YAML syntax errors and duplicate keys with positions', () => {
    expect(parseProjectConfig('ignore: [\n', 'f').diagnostics[0]).toMatchObject({ file: 'f', line: expect.any(Number) });
    const dup = parseProjectConfig('maxDelete: 1\nmaxDelete: 2\n', 'f').diagnostics;
    expect(dup).toHaveLength(1);
    expect(dup[0]).toMatchObject({ line: 2, col: 1 });
  });

  it('reports a document that is not a mapping at the start', () => {
    expect(parseProjectConfig('- a\n', 'f').diagnostics).toEqual([
      { file: 'f', line: 1, col: 1, path: '', message: 'expected a mapping (name: value lines), got a list' },
    ]);
  });

  it('says in YAML words what a value of the wrong type should be, and what YAML made of it', () => {
    expect(parseProjectConfig('prune: yes\nenvironments: [dev, prod]\nmaxDelete: five\nownershipTag: 5\n', 'f').diagnostics.map((d) => `${d.line}:${d.col} ${d.path}: ${d.message}`)).toEqual([
      '1:8 prune: expected true or false, got the text "yes" (YAML reads yes as text: write true)',
      '2:15 environments: expected a mapping (name: value lines), got a list',
      '3:12 maxDelete: expected a number, got the text "five"',
      '4:15 ownershipTag: expected text, got the number 5',
    ]);
  });

  it('falls back to the defaults when there are diagnostics', () => {
    expect(parseProjectConfig('ownershipTag: 5\n', 'f').config.ownershipTag).toBe(DEFAULT_OWNERSHIP_TAG);
  });
});

/**
 * A committer writes dashcd.yaml and a daemon following the repository parses it at start: whatever the text, the
 * answer is diagnostics, never a throw (a throw stopped the daemon at every start until the branch was rewritten).
 */
describe('parseProjectConfig on hostile text', () => {
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...['b', 'c', 'd', 'e', 'f', 'g'].map((n, i) => `${n}: &${n} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`)].join('\n');
  const cases: [string, string, RegExp][] = [
    ['aliases of aliases (billion laughs)', `values:\n  ${bomb.split('\n').join('\n  ')}\n`, /aliases expand to too many values/],
    ['a value that contains itself', 'values:\n  x: &a [1, *a]\n', /alias \*a is inside the node its anchor &a names/],
    ['an alias with no anchor', 'values:\n  x: *nowhere\n', /alias \*nowhere has no anchor/],
    ['block mappings 2,000 deep', `values:\n${Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i + 1)}x:`).join('\n')} 1\n`, /nested (too deeply to read|deeper than 64 levels)/],
    ['flow brackets 5,000 deep', `values:\n  x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, /collections nested too deeply to read: dashcd\.yaml nests a few levels/],
    ['values nested 70 deep', `values:\n  x: ${'['.repeat(70)}1${']'.repeat(70)}\n`, /nested deeper than 64 levels/],
  ];
  it.each(cases)('%s is a diagnostic, not a throw', (_what, text, message) => {
    const result = parseProjectConfig(text, 'dashcd.yaml');
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(message);
    expect(result.diagnostics.every((d) => d.file === 'dashcd.yaml' && d.line >= 1 && d.col >= 1)).toBe(true);
  });
});

describe('parseProjectConfig on many keys', () => {
  it('reads values in time linear in the keys: 8 times the keys cost about 8 times the CPU, not 64', () => {
    // yaml's own unique-key check compares each key with every earlier one: 40,000 values cost 11 s of CPU with it
    // (47 s for the 56,000 a 2 MiB file holds), 0.8 s without. CPU time, not wall time: what this process spent,
    // however busy the machine; a ratio, not a bound, so instrumented code (mutation testing) passes as well.
    const text = (count: number): string => `environments:\n  dev:\nvalues:\n${Array.from({ length: count }, (_, i) => `  k${i}: ${i}`).join('\n')}\n`;
    const cpu = (source: string): number => {
      const start = process.cpuUsage();
      const result = parseProjectConfig(source, 'dashcd.yaml');
      const { user, system } = process.cpuUsage(start);
      expect(result.diagnostics).toEqual([]);
      return user + system;
    };
    const [small, large] = [text(5_000), text(40_000)];
    cpu(small);
    expect(cpu(large) / cpu(small)).toBeLessThan(20);
  });
});

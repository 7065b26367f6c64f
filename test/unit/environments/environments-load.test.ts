import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTemplates, parseTemplateFile } from '../../../src/environments/load-templates.js';

const NOT_A_DASHBOARD = 'not a dashboard: expected a mapping with dashboardMetadata and tiles';
const BOARD = 'dashboardMetadata: { name: a, owner: o }\ntiles: []\n';

describe('parseTemplateFile where the fast parser reads the file', () => {
  it('refuses what is not a dashboard at the start of the file', () => {
    expect(parseTemplateFile('a: 1\n')).toEqual({ problems: [{ line: 1, col: 1, path: '', message: NOT_A_DASHBOARD }] });
    expect(parseTemplateFile(BOARD)).toEqual({ value: { dashboardMetadata: { name: 'a', owner: 'o' }, tiles: [] } });
  });
});

describe('parseTemplateFile where the fast parser declines', () => {
  it('reads what only the full parser reads (anchors), as the same value', () => {
    expect(parseTemplateFile('dashboardMetadata: &m { name: a, owner: o }\ntiles: []\n')).toEqual({ value: { dashboardMetadata: { name: 'a', owner: 'o' }, tiles: [] } });
  });

  it('refuses a file of no document, of something else, or of two documents, saying where', () => {
    expect(parseTemplateFile('%YAML 1.2\n')).toEqual({ problems: [{ line: 1, col: 1, path: '', message: `${NOT_A_DASHBOARD} (the file holds no YAML document)` }] });
    expect(parseTemplateFile('a: &x 1\nb: *x\n')).toEqual({ problems: [{ line: 1, col: 1, path: '', message: NOT_A_DASHBOARD }] });
    expect(parseTemplateFile(`${BOARD}---\nb: 2\n`)).toEqual({ problems: [{ line: 3, col: 1, path: '', message: 'more than one YAML document (---): a dashboard file holds exactly one' }] });
  });

  it("gives the full parser's own message for a syntax error, without a code excerpt", () => {
    expect(parseTemplateFile('dashboardMetadata: { name: a, owner: o }\ntiles: [\n')).toEqual({
      problems: [{ line: 3, col: 1, path: '', message: 'Flow sequence in block collection must be sufficiently indented and end with a ]' }],
    });
  });

  it('with an unquoted flow template and another mistake: the template first, then the first syntax error of the rest', () => {
    const parsed = parseTemplateFile('dashboardMetadata: { name: x, owner: o }\ntiles:\n  - bounds: { top: ${{ values.top }} }\n  - ]\n');
    expect('value' in parsed).toBe(false);
    expect(parsed.problems?.[0]).toEqual({ line: 3, col: 20, path: '', message: expect.stringContaining('must be quoted') });
    expect(parsed.problems?.slice(1).map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual(['4:5 Unexpected flow-seq-end token in YAML stream: "]"']);
  });

  it('an unquoted flow template alone: its problem, and the file read as if quoted', () => {
    expect(parseTemplateFile('dashboardMetadata: { name: x, owner: o }\ntiles:\n  - bounds: { top: ${{ values.top }} }\n')).toEqual({
      value: { dashboardMetadata: { name: 'x', owner: 'o' }, tiles: [{ bounds: { top: '${{ values.top }}' } }] },
      problems: [{ line: 3, col: 20, path: '', message: expect.stringContaining('must be quoted') }],
    });
  });
});

describe('loadTemplates', () => {
  it('reports a missing folder as one diagnostic without a position', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dashcd-load-'));
    try {
      expect(await loadTemplates({ dir: 'sub/nope', cwd: root })).toEqual({
        files: [],
        diagnostics: [{ file: 'sub/nope', line: 0, col: 0, path: '', message: 'dashboards folder not found: sub/nope; create it, or point --dir at the folder holding the dashboard files' }],
        count: 0,
        hashes: new Map(),
        unread: [],
      });
      expect((await loadTemplates({ dir: '.', cwd: join(root, 'nope') })).diagnostics.map((d) => [d.file, d.message])).toEqual([
        ['.', 'dashboards folder not found: .; create it, or point --dir at the folder holding the dashboard files'],
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('reports a file it cannot read, a file with a flow template (kept for references), and counts every file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dashcd-load-'));
    try {
      await mkdir(join(root, 'd'));
      await writeFile(join(root, 'd/a.yaml'), BOARD);
      await writeFile(join(root, 'd/b.yaml'), 'dashboardMetadata: { name: b, owner: o }\ntiles:\n  - bounds: { top: ${{ values.top }} }\n');
      await symlink(join(root, 'gone.yaml'), join(root, 'd/c.yaml'));
      const loaded = await loadTemplates({ dir: 'd', cwd: root });
      expect(loaded.count).toBe(3);
      expect(loaded.files.map((f) => [f.file, f.name, f.referenceOnly])).toEqual([
        ['d/a.yaml', 'a.yaml', undefined],
        ['d/b.yaml', 'b.yaml', true],
      ]);
      expect(loaded.files[0]?.source).toBe(BOARD);
      expect(loaded.diagnostics).toEqual([
        { file: 'd/b.yaml', line: 3, col: 20, path: '', message: expect.stringContaining('must be quoted') },
        { file: 'd/c.yaml', line: 0, col: 0, path: '', message: `cannot read the file (a symlink to ${join(root, 'gone.yaml')}, which does not exist)` },
      ]);
      expect((await loadTemplates({ dir: '.', cwd: join(root, 'd') })).files.map((f) => f.file)).toEqual(['a.yaml', 'b.yaml']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

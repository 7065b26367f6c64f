import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { formatValue, MAX_BLOCK_LINES, patchLines, pointerToPath } from '../../../src/plan/patch-lines.js';
import { renderEnvironmentsText } from '../../../src/cli/render/render-environments.js';
import { renderPlanJson } from '../../../src/cli/render/render-json.js';
import { renderPlanMarkdown } from '../../../src/cli/render/render-markdown.js';
import { renderPlanText } from '../../../src/cli/render/render-text.js';
import { buildPlan, type Plan } from '../../../src/plan/build-plan.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import type { GitInfo } from '../../../src/desired/git-info.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';

const TAG = DEFAULT_OWNERSHIP_TAG;
const ID_NEW = '11111111-1111-4111-8111-111111111111';
const ID_EDIT = '22222222-2222-4222-8222-222222222222';
const ID_SAME = '33333333-3333-4333-8333-333333333333';
const ID_ORPHAN = '44444444-4444-4444-8444-444444444444';
const GIT: GitInfo = { commit: '0123456789abcdef0123456789abcdef01234567', shortCommit: '0123456', branch: 'main', dirty: true, dir: 'dashboards' };

const tile = (name: string, top: number) => ({ name, tileType: 'MARKDOWN' as const, bounds: { top, left: 0, width: 304, height: 38 }, markdown: 'text' });
const board = (name: string, tiles: string[], tags: string[]): Dashboard => ({
  dashboardMetadata: { name, owner: 'ops', tags },
  tiles: tiles.map((t, i) => tile(t, i * 38)),
});

function samplePlan(git: GitInfo | null = GIT): Plan {
  const liveEdit = { ...board('Hosts', ['Title', 'Hosts', 'Memory', 'CPU'], ['x', TAG, 'y']), id: ID_EDIT };
  const desiredEdit = board('Hosts', ['Title', 'Hosts', 'Memory', 'CPU usage', 'Disk'], ['x']);
  const same = board('Same', ['a'], [TAG]);
  return buildPlan({
    desired: [
      { id: ID_EDIT, file: 'dashboards/hosts.yaml', name: 'Hosts', body: desiredEdit },
      { id: ID_NEW, file: 'dashboards/new.yaml', name: 'New | <b>board</b>', body: board('New', ['a'], []) },
      { id: ID_SAME, file: 'dashboards/same.yaml', name: 'Same', body: same },
    ],
    live: new Map([[ID_EDIT, liveEdit], [ID_SAME, { ...same, id: ID_SAME }]]),
    liveOwned: [{ id: ID_ORPHAN, name: 'Old one', owner: 'bob' }, { id: ID_EDIT, name: 'Hosts' }],
    ownershipTag: TAG,
    ignore: [],
    kind: classicDashboards,
    target: 'http://127.0.0.1:4000/e/local',
    ...(git ? { git } : {}),
  });
}

describe('patch lines of a value too large to list', () => {
  /** An update of the one markdown tile of a dashboard from `before` to `after`. */
  function markdownUpdate(before: string, after: string): Plan {
    const dashboard = (markdown: string): Dashboard => ({ ...board('Notes', [], [TAG]), tiles: [{ ...tile('Notes', 0), markdown }] });
    return buildPlan({
      desired: [{ id: ID_EDIT, file: 'dashboards/notes.yaml', name: 'Notes', body: dashboard(after) }],
      live: new Map([[ID_EDIT, { ...dashboard(before), id: ID_EDIT }]]),
      liveOwned: [{ id: ID_EDIT, name: 'Notes' }],
      ownershipTag: TAG,
      ignore: [],
      kind: classicDashboards,
      target: 'http://127.0.0.1:4000/e/local',
    });
  }

  it('shows a long text by the lines that changed, each side up to MAX_BLOCK_LINES (150,000 lines took the text plan past the stack)', () => {
    const lines = (count: number, prefix = 'line'): string[] => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
    const long = lines(150_000).join('\n');
    const edited = renderPlanText(markdownUpdate(long, `${long}!`)).split('\n').map((line) => line.trim());
    expect(edited).toEqual(expect.arrayContaining(['… 149997 lines as before', 'line 149997', 'line 149998', '-    line 149999', '+    line 149999!']));
    expect(edited.length).toBeLessThan(20);
    // Edited at line 2,400 of 2,500: two whole blocks cut at 2,000 lines showed two equal blocks, and not the edit.
    const text = lines(2_500);
    const at2400 = renderPlanText(markdownUpdate(text.join('\n'), text.map((line, i) => (i === 2_400 ? 'CHANGED' : line)).join('\n')));
    expect(at2400).toContain('-    line 2400\n    +    CHANGED\n');
    expect(at2400).toContain('… 97 lines as before');
    // Every line different: each side is still cut, and counted.
    const replaced = renderPlanText(markdownUpdate(long, lines(150_000, 'other').join('\n')));
    expect(replaced).toContain(`-    … ${150_000 - MAX_BLOCK_LINES} more lines (plan --output json has them)`);
    expect(replaced).toContain(`+    … ${150_000 - MAX_BLOCK_LINES} more lines (plan --output json has them)`);
    expect(replaced.split('\n').length).toBeLessThan(2 * MAX_BLOCK_LINES + 20);
  });

  it('sizes a structured value past a megabyte of JSON instead of writing it as YAML (a target\'s huge array ran out of heap)', () => {
    const update = samplePlan().changes.find((c) => c.action === 'update');
    if (update?.action !== 'update') throw new Error('no update');
    const huge = Array.from({ length: 300_000 }, (_, i) => i);
    const lines = patchLines({ ...update, patch: [{ op: 'add', path: '/tiles/0/huge', value: huge }], before: [null] });
    expect(lines).toEqual([expect.stringMatching(/^\+ /), `+    (${JSON.stringify(huge).length} characters of JSON: too large to list here; plan --output json has it)`]);
  });
});

describe('patch lines', () => {
  it('renders replace and remove of scalars on one line, and an added tile whole, as YAML under its path', () => {
    const update = samplePlan().changes.find((c) => c.action === 'update');
    if (update?.action !== 'update') throw new Error('expected an update');
    expect(patchLines(update)).toEqual([
      '- dashboardMetadata.tags[2]: "y"',
      '~ tiles[3].name: "CPU" → "CPU usage"',
      '+ tiles[4]:',
      '+    name: Disk',
      '+    tileType: MARKDOWN',
      '+    bounds:',
      '+      height: 38',
      '+      left: 0',
      '+      top: 152',
      '+      width: 304',
      '+    markdown: text',
    ]);
  });

  it('shows long values whole, multi-line text and replaced objects as marked blocks, and pointers as dotted paths', () => {
    expect(formatValue('x'.repeat(200))).toBe(JSON.stringify('x'.repeat(200)));
    const change = { ...(samplePlan().changes.find((c) => c.action === 'update') as Extract<Plan['changes'][number], { action: 'update' }>) };
    change.patch = [{ op: 'replace', path: '/tiles/0/markdown', value: '# Title\nnew line' }, { op: 'remove', path: '/tiles/1/bounds' }];
    change.before = ['# Title\nold line', { top: 0, left: 0 }];
    expect(patchLines(change)).toEqual(['~ tiles[0].markdown:', '-    # Title', '-    old line', '+    # Title', '+    new line', '- tiles[1].bounds:', '-    top: 0', '-    left: 0']);
    expect(pointerToPath('/tiles/3/name')).toBe('tiles[3].name');
  });
});

describe('renderPlanText', () => {
  it('heads a plan over environments with the commit and the dirty folder too (the note was only in each section)', () => {
    const head = renderEnvironmentsText([{ name: 'dev', target: 't', status: 'planned', plan: samplePlan() }]).split('\n')[0];
    expect(head).toBe('Plan for 1 environment at commit 0123456 on main (uncommitted changes in dashboards/)');
  });

  it('names target, commit and dirty folder first, then one line per change and a summary', () => {
    const lines = renderPlanText(samplePlan()).split('\n');
    expect(lines[0]).toBe('Plan for http://127.0.0.1:4000/e/local at commit 0123456 on main (uncommitted changes in dashboards/)');
    expect(lines).toContain('+ create  New | <b>board</b>  (dashboards/new.yaml)');
    expect(lines).toContain('~ update  Hosts  (dashboards/hosts.yaml)');
    expect(lines).toContain('    ~ tiles[3].name: "CPU" → "CPU usage"');
    expect(lines).toContain(`- orphan  Old one  (id ${ID_ORPHAN}, owner bob) — kept: pruning is off (prune: true in dashcd.yaml or --prune deletes it)`);
    expect(lines.some((l) => l.includes('Same'))).toBe(false);
    expect(lines.at(-2)).toBe('Plan: 1 to create, 1 to update, 1 unchanged, 1 orphan kept.');
  });

  it('says when the folder is not in git and when nothing changes', () => {
    const text = renderPlanText({ changes: [], summary: { create: 0, adopt: 0, update: 0, delete: 0, unchanged: 2, orphan: 0 }, scope: 'full', prune: { enabled: false }, target: 't' });
    expect(text).toBe('Plan for t (not in a git work tree)\n\nNo changes: 0 to create, 0 to update, 2 unchanged, 0 orphans.\n');
  });

  it('is byte-identical across runs', () => {
    expect(renderPlanText(samplePlan())).toBe(renderPlanText(samplePlan()));
  });
});

describe('renderPlanJson', () => {
  it('has exactly the documented keys, in order', () => {
    const text = renderPlanJson(samplePlan());
    const json = JSON.parse(text) as Record<string, unknown> & { changes: Record<string, unknown>[] };
    expect(Object.keys(json)).toEqual(['git', 'target', 'scope', 'prune', 'changes', 'summary']);
    expect(json.git).toEqual({ commit: GIT.commit, shortCommit: '0123456', branch: 'main', dirty: true });
    expect(json.scope).toBe('full');
    expect(json.prune).toEqual({ enabled: false, refused: null });
    expect(json.summary).toEqual({ create: 1, adopt: 0, update: 1, delete: 0, unchanged: 1, orphan: 1 });
    for (const change of json.changes) expect(Object.keys(change)).toEqual(['action', 'kind', 'id', 'name', 'file', 'patch', 'heldInTrash']);
    expect(json.changes.map((c) => c.action)).toEqual(['create', 'update', 'unchanged', 'orphan']);
    expect(json.changes[3]).toEqual({ action: 'orphan', kind: 'dashboard', id: ID_ORPHAN, name: 'Old one', file: null, patch: null, heldInTrash: null });
    expect(json.changes[1]?.patch).toContainEqual({ op: 'replace', path: '/tiles/3/name', value: 'CPU usage' });
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('writes git as null outside a work tree', () => {
    expect(JSON.parse(renderPlanJson(samplePlan(null))).git).toBeNull();
  });
});

describe('renderPlanMarkdown', () => {
  it('has a heading with the commit, a table and one details block per update', () => {
    const md = renderPlanMarkdown(samplePlan());
    const lines = md.split('\n');
    expect(lines[0]).toBe('### dashcd plan for <code>0123456</code> on <code>main</code>');
    expect(md).toContain(`Commit <code>${GIT.commit}</code>`);
    expect(md).toContain('⚠️ uncommitted changes in dashboards/');
    expect(lines).toContain('| action | dashboard | file |');
    expect(lines).toContain('| `~ update` | Hosts | <code>dashboards/hosts.yaml</code> |');
    expect(md.match(/<details>/g)).toHaveLength(1);
    expect(md).toContain('<summary>~ update <b>Hosts</b> (<code>dashboards/hosts.yaml</code>): 3 changes</summary>');
    expect(md).toMatch(/```diff\n- dashboardMetadata.tags\[2\]: "y"\n~ tiles\[3\].name: "CPU" → "CPU usage"\n\+ tiles\[4\]:\n\+ {4}name: Disk\n(\+ .*\n){7}```\n\n<\/details>/);
  });

  it('escapes names so they cannot break the table or inject markup', () => {
    const row = renderPlanMarkdown(samplePlan()).split('\n').find((l) => l.startsWith('| `+ create`'));
    expect(row).toBe('| `+ create` | New \\| &lt;b&gt;board&lt;/b&gt; | <code>dashboards/new.yaml</code> |');
  });

  it('mentions no one: an @name in a dashboard name gets a zero-width space after its @, in the table and in a summary', () => {
    const plan = samplePlan();
    const named = { ...plan, changes: plan.changes.map((c) => ({ ...c, name: `${c.name} @octocat @acme/oncall` })) };
    const md = renderPlanMarkdown(named);
    expect(md).not.toMatch(/@(?!&#8203;)[A-Za-z0-9]/);
    expect(md).toContain('| `+ create` | New \\| &lt;b&gt;board&lt;/b&gt; @&#8203;octocat @&#8203;acme/oncall | <code>dashboards/new.yaml</code> |');
    expect(md).toContain('<summary>~ update <b>Hosts @&#8203;octocat @&#8203;acme/oncall</b> (<code>dashboards/hosts.yaml</code>)');
    // An address in a file name is code, where GitHub links nothing: left as it is.
    expect(renderPlanMarkdown({ ...plan, changes: plan.changes.map((c) => ({ ...c, file: 'dashboards/@team/x.yaml' })) })).toContain('<code>dashboards/@team/x.yaml</code>');
  });
});

describe('git info in every format', () => {
  it('shows the commit and the dirty flag in text, json and markdown', () => {
    const clean = samplePlan({ ...GIT, dirty: false });
    const dirty = samplePlan();
    for (const render of [renderPlanText, renderPlanMarkdown]) {
      expect(render(dirty)).toContain('0123456');
      expect(render(dirty)).toContain('uncommitted changes in dashboards/');
      expect(render(clean)).toContain('0123456');
      expect(render(clean)).not.toContain('uncommitted');
    }
    expect(JSON.parse(renderPlanJson(dirty)).git).toMatchObject({ commit: GIT.commit, dirty: true });
    expect(JSON.parse(renderPlanJson(clean)).git).toMatchObject({ commit: GIT.commit, dirty: false });
  });

  it('says "no commits yet" (not "not in a git work tree") in text, json and markdown for a repository without commits', () => {
    const unborn = samplePlan({ commit: null, shortCommit: null, branch: 'main', dirty: true, dir: 'dashboards' });
    expect(renderPlanText(unborn).split('\n')[0]).toBe(
      'Plan for http://127.0.0.1:4000/e/local (git: no commits yet on main) (uncommitted changes in dashboards/)',
    );
    const md = renderPlanMarkdown(unborn);
    expect(md.split('\n')[0]).toBe('### dashcd plan (git: no commits yet on <code>main</code>)');
    expect(md.split('\n')[2]).toBe('Target: <code>http://127.0.0.1:4000/e/local</code> · Git: no commits yet · ⚠️ uncommitted changes in dashboards/');
    expect(JSON.parse(renderPlanJson(unborn)).git).toEqual({ commit: null, shortCommit: null, branch: 'main', dirty: true });
    for (const text of [renderPlanText(unborn), md]) expect(text).not.toMatch(/not in a git work tree|null|undefined/);
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { deriveDashboardId } from '../../../src/desired/load-desired.js';
import { DashcdBlock } from '../../../src/environments/dashcd-block.js';
import { declaredEnvironments, type Environment } from '../../../src/environments/environment.js';
import type { EnvironmentsConfig } from '../../../src/environments/environments-config.js';
import { parseTemplateFile } from '../../../src/environments/load-templates.js';
import { resolveEnvironment, type EnvironmentDesired, type TemplateFile } from '../../../src/environments/resolve-environment.js';
import { completed } from '../../../src/lib/in-turns.js';

/**
 * One environment's dashboards from files given as YAML text: each problem as `path: message` (with the value at
 * fault after `@`), so a test reads what a user would be told and where.
 */
const CONFIG: EnvironmentsConfig = {
  environments: { dev: { values: { big: 'x'.repeat(1024 * 1024), filter: { timeframe: 5 }, meta: { name: 7, owner: 'ops' } } } },
};
const [DEV] = declaredEnvironments(CONFIG) as [Environment];
const ID = '6b0f6d3e-0000-4000-8000-0000000000aa';

function resolve(files: Record<string, string>): EnvironmentDesired & { problems: string[] } {
  const templates: TemplateFile[] = Object.entries(files).map(([name, source]) => {
    const parsed = parseTemplateFile(source);
    if (!('value' in parsed)) throw new Error(`${name} does not parse`);
    const { dashcd, ...value } = parsed.value;
    return { file: `dashboards/${name}`, name, source, value, ...(dashcd === undefined ? {} : { block: DashcdBlock.parse(dashcd) }) };
  });
  const desired = completed(resolveEnvironment(templates, DEV, {
    deriveId: deriveDashboardId,
    locate: (file, problem, env) => ({ file: file.file, line: 0, col: 0, path: problem.path.join('.'), message: `${problem.message}${problem.valuePath ? ` @${problem.valuePath.join('.')}` : ''}`, env: env.name }),
  }));
  return { ...desired, problems: desired.diagnostics.map((d) => `${d.file} ${d.path}: ${d.message}`) };
}

const board = (extra = '', name = 'A'): string => `dashboardMetadata: { name: ${name}, owner: ops }\ntiles: []\n${extra}`;

describe('resolveEnvironment: ids', () => {
  it("takes the file's id as written, else derives one from the path, and says which", () => {
    const { dashboards, problems } = resolve({ 'a.yaml': board(`id: ${ID}\n`), 'b/c.yaml': board('', 'C'), 'd.yaml': board("id: ''\n", 'D'), 'e.yaml': board('id: null\n', 'E') });
    expect(problems).toEqual([]);
    expect(dashboards.map((d) => [d.file, d.id, d.idSource])).toEqual([
      ['dashboards/a.yaml', ID, 'file'],
      ['dashboards/b/c.yaml', deriveDashboardId('b/c.yaml'), 'derived'],
      ['dashboards/d.yaml', deriveDashboardId('d.yaml'), 'derived'],
      ['dashboards/e.yaml', deriveDashboardId('e.yaml'), 'derived'],
    ]);
  });

  it('refuses an id that is not a UUID, not a string, or refers to a dashboard, and deploys nothing of that file', () => {
    const { dashboards, problems } = resolve({
      'a.yaml': board('id: nope\n'),
      'b.yaml': board('id: 5\n'),
      'c.yaml': board('id: ${{ dashboard("a.yaml") }}\n'),
      'd.yaml': board('id: ${{ values.nope }}\n'),
      'ok.yaml': board(),
    });
    expect(problems).toEqual([
      'dashboards/a.yaml id: Not a valid UUID: "nope"; use the 8-4-4-4-12 hex form, or remove the id to derive one from the file path',
      'dashboards/b.yaml id: the id must be a string, got 5',
      'dashboards/c.yaml id: an id cannot refer to another dashboard',
      'dashboards/d.yaml id: unknown value values.nope (known: big, filter, meta)',
    ]);
    expect(dashboards.map((d) => d.file)).toEqual(['dashboards/ok.yaml']);
  });
});

describe('resolveEnvironment: the rest of a dashboard', () => {
  it('resolves dashboard("/…") from the dashboards folder and dashboard("…") from the referring file', () => {
    const link = (ref: string): string => `dashboardMetadata: { name: L, owner: ops }\ntiles:\n  - name: n\n    tileType: MARKDOWN\n    bounds: { top: 0, left: 0, width: 304, height: 152 }\n    markdown: '\${{ dashboard(${JSON.stringify(ref)}) }}'\n`;
    const { dashboards, problems } = resolve({ 'x/a.yaml': link('/y/b.yaml'), 'x/c.yaml': link('../y/b.yaml'), 'y/b.yaml': board('', 'B'), 'x/d.yaml': link('y/b.yaml') });
    expect(problems).toEqual(['dashboards/x/d.yaml tiles.0.markdown: dashboard("y/b.yaml"): no dashboard file x/y/b.yaml in the dashboards folder']);
    const markdown = (file: string): unknown => ((dashboards.find((d) => d.file === file)?.body as Dashboard | undefined)?.tiles[0] as { markdown?: string } | undefined)?.markdown;
    expect([markdown('dashboards/x/a.yaml'), markdown('dashboards/x/c.yaml')]).toEqual([deriveDashboardId('y/b.yaml'), deriveDashboardId('y/b.yaml')]);
  });

  it('names the value of a template that fails, at the template', () => {
    const { problems } = resolve({ 'a.yaml': board('', '"x ${{ values.meta.name.first }}"') });
    expect(problems).toEqual(['dashboards/a.yaml dashboardMetadata.name: values.meta.name.first: values.meta.name has no members @meta.name']);
  });

  it('does not deploy a file with a problem in its dashcd: block', () => {
    const { dashboards, problems } = resolve({ 'a.yaml': board('dashcd:\n  tiles:\n    Nope: { environments: [dev] }\n') });
    expect(problems).toEqual(['dashboards/a.yaml dashcd.tiles.Nope: no tile is named "Nope"']);
    expect(dashboards).toEqual([]);
  });

  it('names the value whose output fails the schema, also when the value is an object inserted above the member', () => {
    const { problems } = resolve({
      'a.yaml': 'dashboardMetadata:\n  name: A\n  owner: ops\n  dashboardFilter: ${{ values.filter }}\ntiles: []\n',
      'b.yaml': 'dashboardMetadata: ${{ values.meta }}\ntiles: []\n',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^dashboards\/a\.yaml dashboardMetadata\.dashboardFilter\.timeframe: .* @filter$/),
      expect.stringMatching(/^dashboards\/b\.yaml dashboardMetadata\.name: .* @meta$/),
    ]);
  });

  it('refuses a dashboard that values make too large for the target, where the file itself is small', () => {
    const { dashboards, problems } = resolve({ 'a.yaml': board('', '"${{ values.big }}"') });
    expect(dashboards).toEqual([]);
    expect(problems).toEqual([expect.stringMatching(/^dashboards\/a\.yaml : too large for the target: /)]);
  });

  it('hashes the body it sends', () => {
    const [dashboard] = resolve({ 'a.yaml': board(`id: ${ID}\n`) }).dashboards;
    expect(dashboard?.bodyJson).toBe('{"dashboardMetadata":{"name":"A","owner":"ops"},"tiles":[]}');
    expect(dashboard?.contentHash).toBe(createHash('sha256').update(dashboard?.bodyJson ?? '').digest('hex'));
  });
});

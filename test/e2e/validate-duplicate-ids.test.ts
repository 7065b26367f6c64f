import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const SHARED_ID = '7a7a7a7a-0000-4000-8000-000000000001';
const OTHER_ID = '7a7a7a7a-0000-4000-8000-000000000002';
const ORIGINAL = markdownDashboard({ id: SHARED_ID, name: 'Original', owner: 'me@example.com', markdown: 'hi' });
const COPY = markdownDashboard({ id: SHARED_ID, name: 'Copy', owner: 'me@example.com', markdown: 'hi' });

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function validate(): Promise<CliResult> {
  return runDashcd(['validate'], { cwd: (project as Project).root });
}

describe('two dashboard files with the same id', () => {
  it('in git: names the untracked file as the copy (even when it sorts first) and the committed one, and says to remove its id', async () => {
    project = await createProject({ 'dashboards/orig.yaml': ORIGINAL }, { git: true });
    await project.write('dashboards/a-copy.yaml', COPY);
    const result = await validate();
    expect(result.code).toBe(3);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      `dashboards/a-copy.yaml:1:5  id: duplicate dashboard id ${SHARED_ID}: dashboards/orig.yaml:1:5 already has it; this file is new in the change (not so at git HEAD), so it is the copy: remove its id: line so it gets its own id from its path`,
    ]);
  });

  it('in git: a committed file whose id line was changed to another file’s id is the copy', async () => {
    project = await createProject({ 'dashboards/a.yaml': ORIGINAL, 'dashboards/b.yaml': COPY.replace(SHARED_ID, OTHER_ID) }, { git: true });
    await project.write('dashboards/b.yaml', COPY);
    const result = await validate();
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/b\.yaml:1:5 {2}id: duplicate dashboard id \S+: dashboards\/a\.yaml:1:5 already has it; this file is new in the change .*remove its id: line/m);
    expect(result.stdout).not.toMatch(/^dashboards\/a\.yaml/m);
  });

  it('outside git: names both files as candidates and says to remove the id from the copy', async () => {
    project = await createProject({ 'dashboards/orig.yaml': ORIGINAL, 'dashboards/a-copy.yaml': COPY });
    const result = await validate();
    expect(result.code).toBe(3);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      `dashboards/orig.yaml:1:5  id: duplicate dashboard id ${SHARED_ID}: dashboards/a-copy.yaml:1:5 has the same id; one of the two is a copy: remove the id: line from the copy so it gets its own id from its path`,
    ]);
  });

  it('says how a JSON file writes its id: a "id" member, not an id: line', async () => {
    project = await createProject({ 'dashboards/orig.yaml': ORIGINAL }, { git: true });
    await project.write('dashboards/copy.json', JSON.stringify({ id: SHARED_ID, dashboardMetadata: { name: 'Copy', owner: 'me' }, tiles: [] }));
    const result = await validate();
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('so it is the copy: remove its "id" member so it gets its own id from its path');
  });

  it('two documents with one id are a duplicate said at each document.id; ids apart only by letter case are two, as the real service keeps them', async () => {
    const doc = (name: string, id: string): string => `document:\n  kind: dashboard\n  name: ${name}\n  id: ${id}\nversion: 21\ntiles: {}\nlayouts: {}\n`;
    project = await createProject({ 'dashboards/a.yaml': doc('A', 'same'), 'dashboards/b.yaml': doc('B', 'same'), 'dashboards/c.yaml': doc('C', 'Case-ID'), 'dashboards/d.yaml': doc('D', 'case-id') });
    const result = await validate();
    expect(result.code).toBe(3);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'dashboards/b.yaml:4:7  document.id: duplicate document id same: dashboards/a.yaml:4:7 has the same id; one of the two is a copy: remove the document.id from the copy so it gets its own id from its path',
    ]);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentsProjectPerTest } from '../helpers/documents-project.js';

/*
 * The service keeps a document's content as the bytes it was sent. An adopt rewrote them from the pulled file though
 * the plan showed only the mark added to the description: re-serialised smaller, and a 20-digit number rounded.
 */

// As the app might have saved it: its own spacing, and a number no double holds.
const CONTENT = '{\n  "version": 21,\n  "variables": [],\n  "tiles": { "0": { "type": "markdown", "content": "## Made in the app", "entityId": 12345678901234567891 } },\n  "layouts": { "0": { "x": 0, "y": 0, "w": 24, "h": 2 } }\n}\n';

const scope = documentsProjectPerTest({ 'dashboards/.keep': '' });

describe('a document whose plan changes only its document: block', () => {
  it('is adopted and renamed without its content: the bytes the app saved stay; a content change writes the content', async () => {
    const { project, documents, run } = scope();
    await documents.create({ id: 'made-in-app', name: 'Made in the app', type: 'dashboard', isPrivate: false, content: { bytes: CONTENT, contentType: 'application/json' } });
    expect((await run('pull', 'made-in-app')).code).toBe(0);
    const file = join(project.root, 'dashboards', 'made-in-the-app.yaml');
    const adopted = await run('apply');
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain('1 adopted');
    const afterAdopt = await documents.get('made-in-app');
    expect(afterAdopt.content.toString('utf8')).toBe(CONTENT);
    expect(afterAdopt.metadata.description).toContain('managed-by:dashcd');

    await project.write('dashboards/made-in-the-app.yaml', (await readFile(file, 'utf8')).replace('name: Made in the app', 'name: Renamed'));
    expect((await run('apply')).code).toBe(0);
    const afterRename = await documents.get('made-in-app');
    expect([afterRename.metadata.name, afterRename.content.toString('utf8')]).toEqual(['Renamed', CONTENT]);

    await project.write('dashboards/made-in-the-app.yaml', (await readFile(file, 'utf8')).replace('## Made in the app', '## Edited in git'));
    expect((await run('apply')).code).toBe(0);
    expect((await documents.get('made-in-app')).content.toString('utf8')).toContain('## Edited in git');
  });

  it('pull --adopt marks it without rewriting its content', async () => {
    const { documents, run } = scope();
    await documents.create({ id: 'made-in-app', name: 'Made in the app', type: 'dashboard', isPrivate: false, content: { bytes: CONTENT, contentType: 'application/json' } });
    const pulled = await run('pull', '--adopt', 'made-in-app');
    expect(pulled.code, pulled.stderr).toBe(0);
    const after = await documents.get('made-in-app');
    expect([after.metadata.description, after.content.toString('utf8')]).toEqual([expect.stringContaining('managed-by:dashcd'), CONTENT]);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { documentsProjectPerTest } from '../helpers/documents-project.js';
import { api } from '../helpers/server.js';

/*
 * An ignore rule keeps what people change in the app: the plan said "no change" to a layout moved in the app, then an
 * apply of another change wrote the file's layout over it. The real CLI against the embedded server, a layout moved
 * through the API as the app would.
 */

const CHECKOUT = (title: string): string => `document:
  kind: dashboard
  name: Checkout
version: 21
tiles:
  "1": { type: markdown, content: "${title}" }
  "2": { type: markdown, content: "new" }
layouts:
  "1": { x: 8, y: 2, w: 8, h: 4 }
  "2": { x: 0, y: 6, w: 4, h: 4 }
`;

const HOSTS = (markdown: string): string => `dashboardMetadata:
  name: Hosts
  owner: team@example.com
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: "${markdown}"
`;

const scope = documentsProjectPerTest({ 'dashcd.yaml': 'ignore:\n  - /layouts\n  - /tiles/*/bounds\n', 'dashboards/checkout.yaml': CHECKOUT('Errors'), 'dashboards/hosts.yaml': HOSTS('one') });

describe('ignore rules keep what the app changed', () => {
  it("an update writes the live layout and bounds, the file's for a tile it adds", async () => {
    const { server, project, documents, run } = scope();
    expect((await run('apply')).code).toBe(0);
    const [listed] = await documents.list({ filter: "name == 'Checkout'" });
    const id = listed?.id ?? '';
    // Moved in the app: the document's layout, and the classic dashboard's bounds.
    const live = await documents.get(id);
    const content = JSON.parse(live.content.toString('utf8')) as { layouts: Record<string, unknown> };
    content.layouts['1'] = { x: 16, y: 10, w: 8, h: 6 };
    delete content.layouts['2'];
    await documents.replaceContent(id, live.metadata.version, { bytes: JSON.stringify(content), contentType: 'application/json' });
    const list = (await api(`${server.url}/api/config/v1/dashboards`, { token: server.token })).json as { dashboards: { id: string }[] };
    const hostsUrl = `${server.url}/api/config/v1/dashboards/${list.dashboards[0]?.id ?? ''}`;
    const hosts = (await api(hostsUrl, { token: server.token })).json as { tiles: { bounds: Record<string, number> }[] };
    hosts.tiles[0]!.bounds = { top: 38, left: 76, width: 304, height: 152 };
    expect((await api(hostsUrl, { method: 'PUT', token: server.token, body: hosts })).status).toBe(204);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);

    await project.write('dashboards/checkout.yaml', CHECKOUT('Errors total'));
    await project.write('dashboards/hosts.yaml', HOSTS('two'));
    const applied = await run('apply');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('2 updated');
    const after = JSON.parse((await documents.get(id)).content.toString('utf8')) as { tiles: Record<string, { content: string }>; layouts: Record<string, unknown> };
    expect(after.tiles['1']?.content).toBe('Errors total');
    expect(after.layouts).toEqual({ '1': { x: 16, y: 10, w: 8, h: 6 }, '2': { x: 0, y: 6, w: 4, h: 4 } });
    const hostsAfter = (await api(hostsUrl, { token: server.token })).json as { tiles: { markdown: string; bounds: unknown }[] };
    expect(hostsAfter.tiles[0]).toMatchObject({ markdown: 'two', bounds: { top: 38, left: 76, width: 304, height: 152 } });
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);

    // The file drops tile 2: its layout, live's since the rule keeps live's, goes with it (a layout without a tile).
    await project.write('dashboards/checkout.yaml', CHECKOUT('Errors total').replace('  "2": { type: markdown, content: "new" }\n', '').replace('  "2": { x: 0, y: 6, w: 4, h: 4 }\n', ''));
    expect((await run('apply')).code).toBe(0);
    const dropped = JSON.parse((await documents.get(id)).content.toString('utf8')) as { tiles: Record<string, unknown>; layouts: Record<string, unknown> };
    expect([Object.keys(dropped.tiles), dropped.layouts]).toEqual([['1'], { '1': { x: 16, y: 10, w: 8, h: 6 } }]);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
  });
});

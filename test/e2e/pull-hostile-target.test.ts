import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';

/**
 * A target that is not ours to trust (compromised, or a man in the middle): it answers the dashboards API with ids
 * that are paths. What pull writes must stay inside the folder it was given.
 */
const LISTED = [
  { id: 'd1', name: 'Same' },
  { id: '../../evil', name: 'Same' },
  { id: 'd3', name: 'Same' },
];
/** What each GET answers: the listed id, except d3, which answers with another id that is a path. */
const ANSWERED: Record<string, string> = { d1: 'd1', '../../evil': '../../evil', d3: '/../../x' };

function hostileTarget(): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const prefix = '/e/hostile/api/config/v1/dashboards';
    res.setHeader('content-type', 'application/json');
    if (path === prefix) return res.end(JSON.stringify({ dashboards: LISTED.map((d) => ({ ...d, owner: 'someone' })) }));
    const asked = decodeURIComponent(path.slice(prefix.length + 1));
    const id = ANSWERED[asked];
    if (!path.startsWith(`${prefix}/`) || id === undefined) {
      res.statusCode = 404;
      return res.end(JSON.stringify({ error: { code: 404, message: 'not found' } }));
    }
    return res.end(JSON.stringify({ id, dashboardMetadata: { name: 'Same', owner: 'someone' }, tiles: [] }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/e/hostile` })));
}

describe('dashcd pull from a target answering ids that are paths', () => {
  let project: Project;
  let target: { server: Server; url: string };

  beforeEach(async () => {
    project = await createProject({ 'dashboards/.keep': '' });
    target = await hostileTarget();
  });

  afterEach(async () => {
    await new Promise((resolve) => target.server.close(resolve));
    await project.cleanup();
  });

  it('writes only inside the dashboards folder: a listed id is cleaned for the file name, one answered for another id is refused', async () => {
    const pulled = await runDashcd(['pull', '--all'], { cwd: project.root, env: { DT_ENV_URL: target.url, DT_API_TOKEN: 'dt0c01.test' } });
    expect(pulled.stdout.split('\n').filter(Boolean).sort()).toEqual(['↓ pulled  ../../evil  dashboards/same-evil.yaml', '↓ pulled  d1  dashboards/same.yaml']);
    expect(pulled.stderr).toContain('dashcd pull: d3 not pulled: the target answered "/../../x" when asked for this id: not written');
    expect(pulled.code).not.toBe(0);
    expect((await readdir(project.root)).sort()).toEqual(['dashboards']);
    expect((await readdir(`${project.root}/dashboards`)).sort()).toEqual(['.keep', 'same-evil.yaml', 'same.yaml']);
  });
});

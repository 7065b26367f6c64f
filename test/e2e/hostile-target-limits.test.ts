import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { answerPadded, answerTrickling, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';

/**
 * The security review's three targets, against the commands it ran: a listing streamed without end (`pull --all`
 * aborted with bad_alloc), a body of one space a second (`plan` with DASHCD_RETRY_DEADLINE=5s still ran after
 * 300 s), a dashboard nesting 200,000 arrays (`plan` and `pull --all` ended in "unexpected error: Maximum call stack
 * size exceeded"). Each must end the command with the client's precise error and exit 4, the target's fault.
 */

const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';
const DEEP = `{"id":"${ID}","dashboardMetadata":{"name":"Deep","owner":"a@example.com"},"tiles":[{"name":"M","tileType":"MARKDOWN","configured":true,"bounds":{"top":0,"left":0,"width":304,"height":304},"tileFilter":{},"markdown":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`;
const LISTED = JSON.stringify({ dashboards: [{ id: ID, name: 'Deep', owner: 'a@example.com' }] });

let project: Project | undefined;
let target: HostileServer | undefined;
afterEach(async () => {
  await target?.close();
  await project?.cleanup();
  target = undefined;
  project = undefined;
});

async function against(handle: (req: IncomingMessage, res: ServerResponse) => void, argv: string[], env: Record<string, string> = {}): Promise<{ result: CliResult; base: string }> {
  project = await createProject({ 'dashboards/deep.yaml': markdownDashboard({ id: ID, name: 'Deep', owner: 'a@example.com', markdown: 'x' }) });
  target = await startHostileServer(handle);
  const base = `${target.url}/e/hostile`;
  const result = await runDashcd(argv, { cwd: project.root, env: { DT_ENV_URL: base, DT_API_TOKEN: 'dt0c01.HOSTILE.TEST', ...env } });
  return { result, base };
}

/** Every listing lists the one dashboard; every read of it answers it nested 200,000 deep. */
function nesting(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(req.url?.includes(ID) ? DEEP : LISTED);
}

describe('commands against a hostile target', () => {
  for (const argv of [['plan', '--no-cache'], ['pull', '--all']]) {
    it(`${argv.join(' ')}: a live dashboard nested 200,000 deep is a bad answer, not a stack overflow`, async () => {
      const { result, base } = await against(nesting, argv);
      expect(result.stderr).toContain(`unexpected 200 body from GET ${base}/api/config/v1/dashboards/${ID}: nested deeper than 64 levels of objects and arrays`);
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.code).toBe(4);
    });
  }

  it('plan: a body trickling a space at a time ends at DASHCD_RETRY_DEADLINE', async () => {
    const { result } = await against((_req, res) => answerTrickling(res, { text: LISTED }), ['plan', '--no-cache'], { DASHCD_RETRY_DEADLINE: '300ms' });
    expect(result.stderr).toMatch(/: no complete answer within 300 ms, the retry deadline — the target is too slow; retry later or raise DASHCD_RETRY_DEADLINE/);
    expect(result.code).toBe(4);
    expect(await Promise.all(target?.requests.map((request) => request.ended) ?? [])).not.toContainEqual({ whole: true });
  });

  it('pull --all: a listing past 16 MiB is read no further', async () => {
    const { result, base } = await against((_req, res) => answerPadded(res, { head: '{"dashboards":[],"pad":"', padBytes: 64 * 1024 * 1024, tail: '"}' }), ['pull', '--all']);
    expect(result.stderr).toContain(`unexpected 200 body from GET ${base}/api/config/v1/dashboards: the body is larger than 16 MiB, the most dashcd reads of this answer; the rest was not read`);
    expect(result.code).toBe(4);
    expect(await target?.requests[0]?.ended).toEqual({ whole: false });
  });
});

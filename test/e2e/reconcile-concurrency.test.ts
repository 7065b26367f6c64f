import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { startFaultServer } from '../helpers/fault-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const COUNT = 10;
const HOLD_MS = 80;

function dashboardYaml(n: number): string {
  return `id: 2b2b2b2b-0000-4000-8000-${String(n).padStart(12, '0')}
dashboardMetadata:
  name: Board ${n}
  owner: team@example.com
tiles: []
`;
}

interface CountingProxy {
  readonly url: string;
  /** PUTs received, and the most that were ever in flight at once. */
  readonly puts: () => number;
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

/**
 * A real proxy in front of the embedded server that holds every PUT for a while and counts how many are open at
 * once. A PUT leaves the count before its answer is written, so the client's next request is never counted together
 * with the one it waited for.
 */
async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  let inFlight = 0;
  let max = 0;
  let puts = 0;
  const proxy = await startFaultServer({
    upstream,
    handle: async (request, forward) => {
      if (request.method !== 'PUT') return forward();
      puts += 1;
      inFlight += 1;
      max = Math.max(max, inFlight);
      await sleep(HOLD_MS);
      const answer = await forward();
      inFlight -= 1;
      return answer;
    },
  });
  return { url: proxy.url, puts: () => puts, maxInFlight: () => max, close: () => proxy.close() };
}

let server: TestServer;
let proxy: CountingProxy;
let project: Project;
beforeEach(async () => {
  server = await startTestServer();
  proxy = await startCountingProxy(server.baseUrl);
  project = await createProject(Object.fromEntries(Array.from({ length: COUNT }, (_, n) => [`dashboards/board-${n}.yaml`, dashboardYaml(n)])));
});
afterEach(async () => {
  await proxy.close();
  await server.close();
  await project.cleanup();
});

describe('apply --concurrency', () => {
  it('never has more than 3 PUTs in flight with --concurrency 3, and does use all 3', async () => {
    const result = await runDashcd(['apply', '--concurrency', '3'], {
      cwd: project.root,
      env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${COUNT} created, 0 updated`);
    expect(proxy.puts()).toBe(COUNT);
    expect(proxy.maxInFlight()).toBe(3);
  });

  it('the proxy sees more than 3 at once without the flag (default 8), so the bound above is the flag\'s doing', async () => {
    const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token } });
    expect(result.code, result.stderr).toBe(0);
    expect(proxy.maxInFlight()).toBeGreaterThan(3);
    expect(proxy.maxInFlight()).toBeLessThanOrEqual(8);
  });
});

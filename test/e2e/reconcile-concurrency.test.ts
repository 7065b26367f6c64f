import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { startFaultServer } from '../helpers/fault-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const COUNT = 10;
/**
 * Only bounds a broken run: a PUT waits at most this long for the others, so nothing can hang the test. Long enough
 * that a busy machine's slow start of the other apply never releases a PUT early (which would read as a failure).
 */
const HOLD_LIMIT_MS = 60_000;

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
 * A real proxy in front of the embedded server that counts how many PUTs are open at once. Each PUT is held until
 * `expected` are open (or all COUNT have arrived, or HOLD_LIMIT_MS passed), so a client that uses its full
 * concurrency is seen doing so however slowly its requests arrive; a PUT beyond `expected` passes straight through
 * and lifts the count above it. A PUT leaves the count once the upstream has answered, before its answer is written,
 * so the client's next request is never counted together with the one it waited for.
 */
async function startCountingProxy(upstream: string, expected: number): Promise<CountingProxy> {
  let inFlight = 0;
  let max = 0;
  let puts = 0;
  const waiting = new Set<() => void>();
  const hold = (): Promise<void> =>
    new Promise((resolve) => {
      const release = (): void => {
        clearTimeout(timer);
        waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(release, HOLD_LIMIT_MS);
      waiting.add(release);
      if (inFlight >= expected || puts >= COUNT) for (const held of [...waiting]) held();
    });
  const proxy = await startFaultServer({
    upstream,
    handle: async (request, forward) => {
      if (request.method !== 'PUT') return forward();
      puts += 1;
      inFlight += 1;
      max = Math.max(max, inFlight);
      try {
        await hold();
        return await forward();
      } finally {
        inFlight -= 1;
      }
    },
  });
  return { url: proxy.url, puts: () => puts, maxInFlight: () => max, close: () => proxy.close() };
}

let server: TestServer;
let proxy: CountingProxy | undefined;
let project: Project;
beforeEach(async () => {
  server = await startTestServer();
  project = await createProject(Object.fromEntries(Array.from({ length: COUNT }, (_, n) => [`dashboards/board-${n}.yaml`, dashboardYaml(n)])));
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await server.close();
  await project.cleanup();
});

describe('apply --concurrency', () => {
  it('never has more than 3 PUTs in flight with --concurrency 3, and does use all 3', async () => {
    const counting = (proxy = await startCountingProxy(server.baseUrl, 3));
    const result = await runDashcd(['apply', '--concurrency', '3'], {
      cwd: project.root,
      env: { DT_ENV_URL: `${counting.url}/e/local`, DT_API_TOKEN: server.token },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${COUNT} created, 0 updated`);
    expect(counting.puts()).toBe(COUNT);
    expect(counting.maxInFlight()).toBe(3);
  });

  it('the proxy sees all 8 at once without the flag (the default), so the bound above is the flag\'s doing', async () => {
    const counting = (proxy = await startCountingProxy(server.baseUrl, 8));
    const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: `${counting.url}/e/local`, DT_API_TOKEN: server.token } });
    expect(result.code, result.stderr).toBe(0);
    expect(counting.maxInFlight()).toBe(8);
  });
});

describe('two applies at once against one server', () => {
  it('each reports what the server says it did: the creates add up to the dashboards, the other writes are updates', async () => {
    // Every PUT is held until more are open than one apply's --concurrency 8 allows: then both applies have planned
    // (all creates: nothing is written yet) and both write every dashboard.
    let open = 0;
    const held = new Set<() => void>();
    const gate = await startFaultServer({
      upstream: server.baseUrl,
      handle: async (request, forward) => {
        if (request.method === 'PUT' && !request.path.endsWith('/validator')) {
          open += 1;
          await new Promise<void>((resolve) => {
            const release = (): void => {
              clearTimeout(timer);
              resolve();
            };
            const timer = setTimeout(release, HOLD_LIMIT_MS);
            held.add(release);
            if (open > 8) for (const r of held) r();
          });
        }
        return forward();
      },
    });
    try {
      const env = { DT_ENV_URL: `${gate.url}/e/local`, DT_API_TOKEN: server.token };
      const results = await Promise.all([runDashcd(['apply'], { cwd: project.root, env }), runDashcd(['apply'], { cwd: project.root, env })]);
      const counts = results.map((r) => {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/^\+ create {2}Board/m);
        const [, created, updated] = /: (\d+) created, (\d+) updated, 0 unchanged/.exec(r.stdout) ?? [];
        return { created: Number(created), updated: Number(updated) };
      });
      expect(counts.map((c) => c.created + c.updated)).toEqual([COUNT, COUNT]);
      expect((counts[0]?.created ?? 0) + (counts[1]?.created ?? 0)).toBe(COUNT);
    } finally {
      await gate.close();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backoffMs, DEFAULT_RETRY_POLICY } from '../../src/client/retry.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { startFaultServer, type ScriptedAnswer } from '../helpers/fault-server.js';
import { startProxiedTarget, type ProxiedTarget } from '../helpers/proxied-target.js';

const IDS = {
  a: '1a1a1a1a-0000-4000-8000-00000000000a',
  b: '1a1a1a1a-0000-4000-8000-00000000000b',
  c: '1a1a1a1a-0000-4000-8000-00000000000c',
} as const;
const PATH = (id: string): string => `/e/local/api/config/v1/dashboards/${id}`;

const dashboardYaml = (id: string, name: string): string => markdownDashboard({ id, name, owner: 'team@example.com', markdown: name });

let target: ProxiedTarget;
let project: Project;
beforeEach(async () => {
  target = await startProxiedTarget();
  project = await createProject(Object.fromEntries(Object.entries(IDS).map(([k, id]) => [`dashboards/${k}.yaml`, dashboardYaml(id, k)])));
});
afterEach(async () => {
  await target.close();
  await project.cleanup();
});

const dashcd = (argv: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: { ...target.env, ...env } });

const busy = (status: number, headers: Record<string, string>, match: ScriptedAnswer['match']): ScriptedAnswer => ({
  status,
  headers,
  body: { error: { code: status, message: status === 429 ? 'Too many requests' : 'Service unavailable' } },
  match,
});

/** Arrival times of the requests to `path` with `method`, in ms. */
const arrivals = (method: string, path: string): number[] => target.proxy.requests.filter((r) => r.method === method && r.path === path).map((r) => r.at);
const gaps = (times: number[]): number[] => times.slice(1).map((t, i) => t - (times[i] ?? t));

describe('apply against a target that throttles', () => {
  it('converges through 429 and 503 answers and waits as long as Retry-After asks', async () => {
    const put = { method: 'PUT', path: PATH(IDS.b) };
    target.proxy.script(busy(429, { 'retry-after': '1' }, put), busy(503, { 'retry-after': '1' }, put));
    target.proxy.script(busy(503, { 'retry-after': '1' }, { method: 'GET', path: PATH(IDS.c) }));

    const result = await dashcd(['apply']);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('3 created, 0 updated, 0 unchanged, 0 deleted, 0 failed');
    expect(target.proxy.pending()).toBe(0);
    const putTimes = arrivals('PUT', PATH(IDS.b));
    expect(putTimes).toHaveLength(3);
    // Retry-After is a lower bound: each retry came at least a second after the answer that asked for it.
    for (const gap of gaps(putTimes)) expect(gap).toBeGreaterThanOrEqual(990);
    expect(gaps(arrivals('GET', PATH(IDS.c)))[0]).toBeGreaterThanOrEqual(990);
    expect((await dashcd(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('honours X-RateLimit-Reset (a timestamp) when there is no Retry-After', async () => {
    // The reset is set when the 429 is sent, 1.5 s ahead, so start-up time cannot eat it; backoff alone is far shorter.
    const RESET_MS = 1_500;
    const TOLERANCE_MS = 50;
    expect(backoffMs(0, DEFAULT_RETRY_POLICY, () => 0.999_999)).toBeLessThan(RESET_MS - TOLERANCE_MS);
    let sentAt: number | undefined;
    let retriedAt: number | undefined;
    const limiter = await startFaultServer({
      upstream: target.server.baseUrl,
      handle: (request, forward) => {
        if (request.method !== 'PUT' || request.path !== PATH(IDS.a)) return forward();
        if (sentAt !== undefined) {
          retriedAt ??= performance.now();
          return forward();
        }
        sentAt = performance.now();
        return busy(429, { 'x-ratelimit-reset': String(Date.now() + RESET_MS) }, undefined);
      },
    });
    try {
      const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: `${limiter.url}/e/local`, DT_API_TOKEN: target.server.token } });

      expect(result.code, result.stderr).toBe(0);
      expect(sentAt).toBeDefined();
      expect(retriedAt).toBeDefined();
      // Date (the header) and performance (the two times) are different clocks, hence the small tolerance.
      expect((retriedAt ?? 0) - (sentAt ?? 0)).toBeGreaterThanOrEqual(RESET_MS - TOLERANCE_MS);
    } finally {
      await limiter.close();
    }
  });

  it('a dashboard that keeps failing is reported with exit 5 and the others are applied', async () => {
    target.proxy.script(...Array.from({ length: 50 }, () => busy(503, {}, { method: 'PUT', path: PATH(IDS.b) })));

    const result = await dashcd(['apply'], { DASHCD_RETRY_DEADLINE: '1s' });

    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(new RegExp(`✗ create failed {2}${IDS.b} {2}dashboards/b\\.yaml: 503 from PUT .*gave up after \\d+ attempts`));
    expect(result.stdout).toContain(`+ created  ${IDS.a}  dashboards/a.yaml`);
    expect(result.stdout).toContain(`+ created  ${IDS.c}  dashboards/c.yaml`);
    expect(result.stdout).toContain('2 created, 0 updated, 0 unchanged, 0 deleted, 1 failed');
    expect(arrivals('PUT', PATH(IDS.b)).length).toBeGreaterThan(1);
    expect((await target.api.dashboards.list()).map((d) => d.id).sort()).toEqual([IDS.a, IDS.c]);

    // Once the target recovers, the next apply writes just the one that failed.
    while (target.proxy.pending() > 0) await fetch(`${target.proxy.url}${PATH(IDS.b)}`, { method: 'PUT' });
    target.proxy.requests.length = 0;
    const retried = await dashcd(['apply']);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('1 created, 0 updated, 2 unchanged');
  });
});

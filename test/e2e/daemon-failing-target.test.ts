import { describe, expect, it } from 'vitest';
import { runDashcd } from '../helpers/cli.js';
import { dashboardYaml, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';

const scope = daemonScopePerTest();

/** Port 9 on loopback: nothing listens there, so every request is refused at once, as an unreachable target's. */
const NOWHERE = 'http://127.0.0.1:9';

const ENVIRONMENTS = `environments:\n  dev:\n  prod:\n    target: ${NOWHERE}\n    tokenEnv: PROD_TOKEN\n`;

interface LogLine {
  msg: string;
  env?: string;
  component?: string;
  err?: unknown;
}

function logLines(d: DaemonChild): LogLine[] {
  return d.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
}

async function health(d: DaemonChild): Promise<{ code: number; body: unknown }> {
  const answer = await fetch(`${d.url}/healthz`);
  return { code: answer.status, body: await answer.json() };
}

describe('dashcd daemon with an environment whose target cannot be reached', () => {
  it("names prod's target in dashcd.yaml (not DT_ENV_URL), logs the failures without a stack, and /healthz reports prod stale", async () => {
    const project = await scope.createProject({ 'dashcd.yaml': ENVIRONMENTS, 'dashboards/hosts.yaml': dashboardYaml('Hosts') });
    const d = await scope.startDaemon([], { cwd: project.root, env: { PROD_TOKEN: 'prod-token-e2e', DASHCD_RETRY_DEADLINE: '1s' } });

    const status = (await d.status()).environments ?? [];
    expect(status.map((e) => [e.name, e.lastReconcile?.ok])).toEqual([['dev', true], ['prod', false]]);
    const prodError = status[1]?.lastReconcile?.error ?? '';
    expect(prodError).toMatch(/^could not reach http:\/\/127\.0\.0\.1:9: .*\(prod's target in dashcd\.yaml\)$/);

    // Still 200, as a failing fetch is: the daemon retries on its own, and dev is reconciling.
    const seen = await health(d);
    expect(seen).toEqual({ code: 200, body: { status: 'stale', stale: [expect.stringMatching(/^prod: last pass failed: could not reach http:\/\/127\.0\.0\.1:9: .*\(prod's target in dashcd\.yaml\)$/)] } });
    expect(status[1]?.stale).toEqual([`last pass failed: ${prodError}`]);

    // The events poller's failure too (it starts once the first pass has ended): its message, not a stack.
    await waitFor(() => logLines(d).some((line) => line.env === 'prod' && line.component === 'poller' && line.msg === 'events pull failed; retrying'), { what: "prod's events poller to fail" });
    const failures = logLines(d).filter((line) => line.err !== undefined);
    expect(failures.map((line) => line.msg)).toEqual(expect.arrayContaining(['reconcile pass failed; will retry', 'events pull failed; retrying']));
    for (const line of failures) {
      expect(line.err).toEqual(expect.stringContaining("prod's target in dashcd.yaml"));
    }
    expect(d.stdout()).not.toContain('DT_ENV_URL');
    expect(d.stdout()).not.toContain('"stack"');
  });

  it('a one-target daemon names --target, and /healthz reports its failing passes', async () => {
    const project = await scope.createProject({ 'dashboards/hosts.yaml': dashboardYaml('Hosts') });
    const d = await scope.startDaemon(['--target', NOWHERE], { cwd: project.root, env: { DT_API_TOKEN: 'target-token-e2e', DASHCD_RETRY_DEADLINE: '1s' } });
    const error = (await d.status()).lastReconcile?.error ?? '';
    expect(error).toMatch(/^could not reach http:\/\/127\.0\.0\.1:9: .*\(--target\)$/);
    expect(await health(d)).toEqual({ code: 200, body: { status: 'stale', stale: [expect.stringMatching(/^last pass failed: could not reach .*\(--target\)$/)] } });
  });

  it("a remote environment's missing token names every scope the daemon needs, DataExport for its events poller too", async () => {
    const project = await scope.createProject({ 'dashcd.yaml': ENVIRONMENTS, 'dashboards/hosts.yaml': dashboardYaml('Hosts') });
    const result = await runDashcd(['daemon', '--listen', '127.0.0.1:0'], { cwd: project.root, env: {} });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('PROD_TOKEN is not set');
    expect(result.stderr).toMatch(/set it to a token with scopes ReadConfig, WriteConfig and DataExport\n$/);
  });
});

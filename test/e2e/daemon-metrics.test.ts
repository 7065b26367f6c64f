import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../helpers/cli.js';
import { dashboardYaml, metricValue, parsePrometheus, startDaemon, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

let project: Project | undefined;
let daemon: DaemonChild | undefined;
let server: TestServer | undefined;
let fault: FaultServer | undefined;
afterEach(async () => {
  await daemon?.stop('SIGKILL');
  await fault?.close();
  await server?.close();
  await project?.cleanup();
  project = daemon = server = fault = undefined;
});

const DASHBOARD_PUT = { method: 'PUT', path: /\/api\/config\/v1\/dashboards\/[^/]+$/ };

interface PollerJson {
  eventsArchived: number;
  position?: number;
  positionTime?: string;
  lagSeconds?: number;
}

/** The exposition's `# TYPE` of each family. */
function familyTypes(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('dashcd daemon /metrics and /status', () => {
  it('exposes events archived, poll lag and durations, invalid files, write failures and the last success, and the poller position and lag', async () => {
    project = await createProject({
      'dashboards/web.yaml': dashboardYaml('Web'),
      'dashboards/broken.yaml': dashboardYaml('Broken').replace('top: 0', 'top: zero'),
    });
    server = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'DataExport'] });
    // The real server behind a proxy that answers the first two dashboard writes with a 500 (not retried).
    fault = await startFaultServer({ upstream: server.baseUrl });
    fault.script({ status: 500, body: { error: { code: 500, message: 'injected' } }, match: DASHBOARD_PUT }, { status: 500, body: { error: { code: 500, message: 'injected' } }, match: DASHBOARD_PUT });
    const started = Date.now();
    const d = (daemon = await startDaemon(['--target', `${fault.url}/e/local`, '--poll', '200ms', '--resync', '60s', '--archive', 'archive'], {
      cwd: project.root,
      env: { DT_API_TOKEN: server.token, DASHCD_RETRY_DEADLINE: '1s' },
    }));
    const firstPass = await d.metrics();
    expect(metricValue(firstPass, 'dashcd_write_failures_total')).toBeGreaterThanOrEqual(1);
    // Unless the retried pass already went through (a slow machine), no pass has succeeded yet.
    if (metricValue(firstPass, 'dashcd_writes_total', { action: 'create' }) === 0) {
      expect(metricValue(firstPass, 'dashcd_last_successful_reconcile_timestamp_seconds')).toBe(0);
    }

    // The queue retries the failed pass with backoff: the second write fails too, the third goes through.
    await waitFor(async () => metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'create' }) === 1, { what: 'the write to succeed after two failures' });
    const pushed = await api(`${server.url}/api/v1/events`, {
      method: 'POST',
      token: server.token,
      body: { eventType: 'CUSTOM_INFO', source: 'test', title: 'metrics', attachRules: { entityIds: ['HOST-1', 'HOST-2'] } },
    });
    expect(pushed.status, pushed.text).toBe(200);
    await waitFor(async () => (await d.status()).poller.eventsArchived >= 2, { what: 'the pushed events archived' });

    const response = await fetch(`${d.url}/metrics`);
    const text = await response.text();
    const samples = parsePrometheus(text);
    expect(Object.fromEntries(familyTypes(text))).toMatchObject({
      dashcd_events_archived_total: 'counter',
      dashcd_poll_lag_seconds: 'gauge',
      dashcd_poll_duration_seconds: 'histogram',
      dashcd_invalid_files: 'gauge',
      dashcd_write_failures_total: 'counter',
      dashcd_last_successful_reconcile_timestamp_seconds: 'gauge',
    });
    const status = (await (await fetch(`${d.url}/status`)).json()) as { poller: PollerJson };
    expect(metricValue(samples, 'dashcd_events_archived_total')).toBe(status.poller.eventsArchived);
    expect(metricValue(samples, 'dashcd_invalid_files')).toBe(1);
    expect(metricValue(samples, 'dashcd_write_failures_total')).toBe(2);
    const lastSuccess = metricValue(samples, 'dashcd_last_successful_reconcile_timestamp_seconds');
    expect(lastSuccess).toBeGreaterThanOrEqual(started / 1000);
    expect(lastSuccess).toBeLessThanOrEqual(Date.now() / 1000);

    const polls = metricValue(samples, 'dashcd_poll_duration_seconds_count');
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(metricValue(samples, 'dashcd_poll_duration_seconds_sum')).toBeGreaterThan(0);
    expect(metricValue(samples, 'dashcd_poll_duration_seconds_bucket', { le: '+Inf' })).toBe(polls);
    const lag = metricValue(samples, 'dashcd_poll_lag_seconds');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(60);

    // The position is the end of the last completed pull: after the pushed events started, not in the future.
    const { position, positionTime, lagSeconds } = status.poller;
    expect(position).toBeGreaterThanOrEqual(started);
    expect(position).toBeLessThanOrEqual(Date.now());
    expect(positionTime).toBe(new Date(position ?? 0).toISOString());
    expect(lagSeconds).toBeGreaterThanOrEqual(0);
    expect(lagSeconds).toBeLessThan(60);
    expect((await d.stop()).code).toBe(0);
  }, 60_000);
});

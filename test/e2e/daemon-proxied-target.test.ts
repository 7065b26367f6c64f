import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../helpers/cli.js';
import { dashboardYaml, expectConsistentArchive, metricValue, parsePrometheus, startDaemon, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { startFaultServer, type FaultServer, type ScriptedAnswer } from '../helpers/fault-server.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

/** The daemon against a real server (`--target`) behind a proxy that answers scripted faults and forwards the rest. */
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

interface Proxied {
  d: DaemonChild;
  server: TestServer;
  fault: FaultServer;
  root: string;
}

async function startBehindProxy(files: Record<string, string>, answers: ScriptedAnswer[], retryDeadline: string): Promise<Proxied> {
  project = await createProject(files);
  const s = (server = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'DataExport'] }));
  const f = (fault = await startFaultServer({ upstream: s.baseUrl }));
  f.script(...answers);
  const d = (daemon = await startDaemon(['--target', `${f.url}/e/local`, '--poll', '200ms', '--resync', '60s', '--archive', 'archive'], {
    cwd: project.root,
    env: { DT_API_TOKEN: s.token, DASHCD_RETRY_DEADLINE: retryDeadline },
  }));
  return { d, server: s, fault: f, root: project.root };
}

/** Pushes one CUSTOM_INFO event per entity straight to the server; returns the stored ids. */
async function pushEvents(s: TestServer, entityIds: string[]): Promise<string[]> {
  const pushed = await api(`${s.url}/api/v1/events`, { method: 'POST', token: s.token, body: { eventType: 'CUSTOM_INFO', source: 'test', title: 'test', attachRules: { entityIds } } });
  expect(pushed.status, pushed.text).toBe(200);
  return (pushed.json as { storedIds: string[] }).storedIds;
}

const DASHBOARD_PUT = { method: 'PUT', path: /\/api\/config\/v1\/dashboards\/[^/]+$/ };
const INJECTED_500: ScriptedAnswer = { status: 500, body: { error: { code: 500, message: 'injected' } }, match: DASHBOARD_PUT };
const DASHBOARDS = /\/api\/config\/v1\/dashboards/;
const EVENTS = /\/api\/v1\/events$/;

function tooManyRequests(path: RegExp, times: number): ScriptedAnswer[] {
  const answer = { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 429, message: 'Too many requests' } }, match: { path } };
  return Array.from({ length: times }, () => answer);
}

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
    const started = Date.now();
    // The first two dashboard writes are answered 500 (not retried by the client): two failed writes.
    const { d, server: s } = await startBehindProxy(
      { 'dashboards/web.yaml': dashboardYaml('Web'), 'dashboards/broken.yaml': dashboardYaml('Broken').replace('top: 0', 'top: zero') },
      [INJECTED_500, INJECTED_500],
      '1s',
    );
    const firstPass = await d.metrics();
    expect(metricValue(firstPass, 'dashcd_write_failures_total')).toBeGreaterThanOrEqual(1);
    // Unless the retried pass already went through (a slow machine), no pass has succeeded yet.
    if (metricValue(firstPass, 'dashcd_writes_total', { action: 'create' }) === 0) {
      expect(metricValue(firstPass, 'dashcd_last_successful_reconcile_timestamp_seconds')).toBe(0);
    }

    // The queue retries the failed pass with backoff: the second write fails too, the third goes through.
    await waitFor(async () => metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'create' }) === 1, { what: 'the write to succeed after two failures' });
    await pushEvents(s, ['HOST-1', 'HOST-2']);
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
  }, 180_000);
});

describe('dashcd daemon against a rate-limiting target', () => {
  it('keeps trying through a stretch of 429s with Retry-After, starts the poller anyway, and converges with nothing lost', async () => {
    // Ten dashboard requests and three feed requests answered 429 (Retry-After: 1), more than one pass's requests can
    // wait out within the 2 s retry deadline: the first passes fail and the daemon has to come back on its own.
    const { d, server: s, fault: f, root } = await startBehindProxy({ 'dashboards/web.yaml': dashboardYaml('Web') }, [...tooManyRequests(DASHBOARDS, 10), ...tooManyRequests(EVENTS, 3)], '2s');
    const storedIds = await pushEvents(s, ['HOST-1']);
    expect((await d.status()).lastReconcile).toMatchObject({ ok: false });
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);

    await waitFor(async () => (await d.status()).lastReconcile?.ok === true, { what: 'a pass to succeed once the 429s stop' });
    const status = await d.status();
    expect(status.files['dashboards/web.yaml']).toMatchObject({ result: 'created' });
    const live = await api(`${s.url}/api/config/v1/dashboards/${status.files['dashboards/web.yaml']?.id ?? ''}`, { token: s.token });
    expect((live.json as { dashboardMetadata: { name: string } }).dashboardMetadata.name).toBe('Web v1');
    const samples = await d.metrics();
    expect(metricValue(samples, 'dashcd_reconciles_total', { result: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(samples, 'dashcd_writes_total', { action: 'create' })).toBe(1);
    expect(f.pending()).toBe(0);

    // Within a pass the client waited as told: the list read answered 429 came back no sooner than a second later.
    const listReads = f.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/api/config/v1/dashboards'));
    expect(listReads[0]?.answer).toBe(429);
    expect((listReads[1]?.at ?? 0) - (listReads[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);

    // The poller waited for the first full pass only, not for a successful one.
    const lines = d.stdout().split('\n');
    const failedPass = lines.findIndex((l) => l.includes('"reconcile pass failed; will retry"'));
    const pollerStarted = lines.findIndex((l) => l.includes('"events poller started"'));
    const converged = lines.findIndex((l) => l.includes('"reconcile finished"'));
    expect(failedPass).toBeGreaterThanOrEqual(0);
    expect(pollerStarted).toBeGreaterThan(failedPass);
    expect(converged).toBeGreaterThan(pollerStarted);

    const archived = await waitFor(async () => {
      const ids = await expectConsistentArchive(join(root, 'archive'), 'local').catch(() => new Set<string>());
      return storedIds.every((id) => ids.has(id)) ? ids : undefined;
    }, { what: 'the pushed event archived after the feed’s 429s' });
    expect([...archived]).toEqual(storedIds);
    expect(d.process.exitCode).toBeNull();
    expect((await d.stop()).code).toBe(0);
  }, 180_000);
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { getEventListeners } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { classicDashboards } from '../../src/kinds/classic-dashboards.js';
import { createApiClient, type ApiClient } from '../../src/client/api-client.js';
import { TransportError } from '../../src/client/errors.js';
import { loadProjectConfigFor } from '../../src/config/project-config.js';
import { loadDesired } from '../../src/desired/load-desired.js';
import { strictly } from '../../src/desired/strict.js';
import { silentLogger } from '../../src/lib/logger.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../src/config/project-config.js';
import { withOwnershipTag } from '../../src/dashboards/ownership.js';
import { EarlyPlans } from '../../src/reconcile/early-plans.js';
import { readAndPlan } from '../../src/reconcile/plan-against-live.js';
import { planDashboards, planLoaded, type PlanContext } from '../../src/reconcile/plan-dashboards.js';
import type { Dashboard } from '../../src/schema/dashboard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const id = (n: number): string => `0e1a0000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function body(n: number, markdown: string): Dashboard {
  return {
    dashboardMetadata: { name: `D${n}`, owner: 'team@example.com', tags: ['t'] },
    tiles: [{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown }],
  };
}

/** The real client with its dashboard reads counted: early ones (they carry the early reads' signal) apart. */
function countingReads(api: ApiClient): { api: ApiClient; reads: () => number; early: () => number } {
  let reads = 0;
  let early = 0;
  const dashboards = {
    ...api.dashboards,
    get: (...args: Parameters<ApiClient['dashboards']['get']>) => (reads++, api.dashboards.get(...args)),
    getText: (...args: Parameters<ApiClient['dashboards']['getText']>) => {
      reads++;
      if (args[1]?.signal !== undefined) early++;
      return api.dashboards.getText(...args);
    },
  };
  return { api: { ...api, dashboards }, reads: () => reads, early: () => early };
}

let root = '';
let server: TestServer;
const clients: ApiClient[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'dashcd-early-'));
  await mkdir(join(root, 'dashboards'));
  server = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  await rm(root, { recursive: true, force: true });
});

function client(baseUrl = server.url, retry?: Parameters<typeof createApiClient>[0]['retry']): ApiClient {
  const api = createApiClient({ baseUrl, token: server.token, ...(retry ? { retry, random: () => 1 } : {}) });
  clients.push(api);
  return api;
}

function context(api: ApiClient): PlanContext {
  return { dir: 'dashboards', cwd: root, api, targetLabel: 't', log: silentLogger(), concurrency: 4, workers: 1 };
}

async function writeDashboard(name: string, n: number, markdown: string): Promise<void> {
  await writeFile(join(root, 'dashboards', name), JSON.stringify({ id: id(n), ...body(n, markdown) }));
}

/** The plan of the same folder without early reads: load everything, then plan. */
async function planAfterLoading(api: ApiClient, options: Parameters<typeof planLoaded>[2] = {}) {
  const dir = join(root, 'dashboards');
  const [project, loaded] = await Promise.all([loadProjectConfigFor(dir, root), loadDesired({ dir, cwd: root, workers: 1 })]);
  const desired = project.config.strict === true ? strictly(loaded) : loaded;
  return planLoaded(context(api), { project, desired, git: undefined }, options);
}

describe('planDashboards reads live dashboards while the files are still being checked', () => {
  it('plans exactly what planning after loading plans, reading each dashboard once', async () => {
    const api = client();
    for (let n = 0; n < 60; n++) await writeDashboard(`d${String(n).padStart(2, '0')}.json`, n, `m${n}`);
    for (let n = 0; n < 40; n++) {
      const live = n < 20 ? body(n, `m${n}`) : n < 30 ? body(n, 'edited by hand') : body(n, `m${n}`);
      await api.dashboards.put(id(n), { id: id(n), ...(n < 30 ? withOwnershipTag(live, DEFAULT_OWNERSHIP_TAG) : live) });
    }
    const counted = countingReads(api);

    const early = await planDashboards(context(counted.api));
    const after = await planAfterLoading(api);

    expect(early.kind === 'planned' && early.plan.summary).toEqual({ create: 20, adopt: 10, update: 10, delete: 0, unchanged: 20, orphan: 0 });
    expect(early.kind === 'planned' && early.plan).toEqual(after.kind === 'planned' && after.plan);
    expect(counted.reads()).toBe(60);
    expect(counted.early()).toBe(60);
  });

  it('never reads a file early that strictness makes invalid, and plans the rest as planning after loading does', async () => {
    const api = client();
    await writeFile(join(root, 'dashcd.yaml'), 'strict: true\n');
    await writeDashboard('a.json', 1, 'one');
    await writeFile(join(root, 'dashboards', 'b.json'), JSON.stringify({ id: id(2), ...body(2, 'two'), typo: 1 }));
    const counted = countingReads(api);

    const early = await planDashboards(context(counted.api), { tolerateInvalid: true });
    const after = await planAfterLoading(api, { tolerateInvalid: true });

    expect(early.kind === 'planned' && early.plan.changes.map((c) => [c.action, c.id])).toEqual([['create', id(1)]]);
    expect(early.kind === 'planned' && early.plan).toEqual(after.kind === 'planned' && after.plan);
    expect(counted.early()).toBe(1);
  });

  it('stops at once when the caller aborts, as the daemon does on SIGTERM (one signal for the pass and its client)', { timeout: 30_000 }, async () => {
    const silent = await silentServer();
    onTestFinished(() => silent.close());
    const controller = new AbortController();
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${silent.port}/e/local`, token: server.token, requestTimeoutMs: 600_000, signal: controller.signal });
    clients.push(api);
    for (let n = 0; n < 10; n++) await writeDashboard(`d${n}.json`, n, `m${n}`);

    const planned = planDashboards({ ...context(api), signal: controller.signal });
    await waitFor(() => silent.connections() > 0, { what: 'an early read to connect' });
    controller.abort(new Error('pass cancelled'));

    await expect(planned).rejects.toThrow('pass cancelled');
  });

  it('leaves no listener behind on a signal that outlives the plan (a daemon plans every few seconds)', async () => {
    const lifetime = new AbortController();
    const api = createApiClient({ baseUrl: server.url, token: server.token, signal: lifetime.signal });
    clients.push(api);
    for (let n = 0; n < 20; n++) await writeDashboard(`d${n}.json`, n, `m${n}`);
    const before = getEventListeners(lifetime.signal, 'abort').length;

    for (let pass = 0; pass < 3; pass++) expect((await planDashboards({ ...context(api), signal: lifetime.signal })).kind).toBe('planned');

    // undici drops a request's own listener once its body has closed, a turn or two after the answer is used.
    await waitFor(() => getEventListeners(lifetime.signal, 'abort').length === before, { what: 'the listeners of the last requests to go' });
  });

  it('plans the first of two files with one id from its own early read when invalid files are tolerated', async () => {
    const api = client();
    await writeDashboard('a.json', 1, 'first');
    await writeDashboard('b.json', 1, 'second');
    await writeDashboard('c.json', 2, 'two');
    await api.dashboards.put(id(1), { id: id(1), ...withOwnershipTag(body(1, 'first'), DEFAULT_OWNERSHIP_TAG) });

    const early = await planDashboards(context(api), { tolerateInvalid: true });
    const after = await planAfterLoading(api, { tolerateInvalid: true });

    expect(early.kind === 'planned' && early.plan.changes.map((c) => [c.action, c.id])).toEqual([['create', id(2)], ['unchanged', id(1)]]);
    expect(early.kind === 'planned' && early.plan).toEqual(after.kind === 'planned' && after.plan);
  });

  it('reports invalid files against a target that never answers at once: the early reads are abandoned, not waited for', { timeout: 30_000 }, async () => {
    const silent = await silentServer();
    // A read waits ten minutes for an answer: only abandoning the reads lets this test (and closing the client) finish.
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${silent.port}/e/local`, token: server.token, requestTimeoutMs: 600_000 });
    clients.push(api);
    onTestFinished(() => silent.close());
    for (let n = 0; n < 40; n++) await writeDashboard(`d${String(n).padStart(2, '0')}.json`, n, `m${n}`);
    await writeFile(join(root, 'dashboards', 'z-broken.yaml'), 'dashboardMetadata: {name: n\n');

    const result = await planDashboards(context(api));

    expect(result.kind).toBe('invalid');
    expect(result.kind === 'invalid' && result.diagnostics.map((d) => d.file)).toEqual(['dashboards/z-broken.yaml']);
    clients.splice(clients.indexOf(api), 1);
    await api.close();
  });

  it('leaves an unreachable target to the plan\'s own reads, which fail as they always did', async () => {
    const closedPort = await freePort();
    const api = client(`http://127.0.0.1:${closedPort}/e/local`, { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 10_000 });
    await writeDashboard('a.json', 1, 'one');

    await expect(planDashboards(context(api))).rejects.toBeInstanceOf(TransportError);
  });
});

describe('readAndPlan', () => {
  it('settles a dashboard the embedded server returns as apply wrote it on the text alone, without decoding the body', async () => {
    const api = client();
    const b = body(1, 'x');
    await api.dashboards.put(id(1), { id: id(1), ...withOwnershipTag(b, DEFAULT_OWNERSHIP_TAG) });
    const undecodable = (bodyJson: string) => ({
      id: id(1),
      file: 'a.json',
      name: 'D1',
      get body(): Dashboard {
        throw new Error('decoded');
      },
      bodyJson,
    });
    const rules = { ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards };
    // The written body is decoded too (from the text, classic-written.ts): a kind that refuses to make it.
    const undecoded = { ...rules, kind: { ...classicDashboards, written: () => { throw new Error('decoded'); } } };

    expect(await readAndPlan(undecodable(JSON.stringify(b)), { api, rules: undecoded })).toEqual({ action: 'unchanged', id: id(1), name: 'D1', file: 'a.json' });
    await expect(readAndPlan(undecodable(JSON.stringify(body(1, 'y'))), { api, rules: undecoded })).rejects.toThrow('decoded');
    const parsed = { id: id(1), file: 'a.json', name: 'D1', body: body(1, 'y'), bodyJson: JSON.stringify(body(1, 'y')) };
    expect(await readAndPlan(parsed, { api, rules })).toMatchObject({ action: 'update', patch: [{ op: 'replace', path: '/tiles/0/markdown', value: 'y' }] });
  });
});

describe('EarlyPlans', () => {
  it('hands out an early change only for the same file, id and body, once', async () => {
    const api = client();
    const early = new EarlyPlans({ api, rules: { ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards }, concurrency: 2 });
    const b = body(1, 'x');
    const offered = { id: id(1), file: 'a.json', name: 'D1', body: b, bodyJson: JSON.stringify(b) };
    early.offer(offered);

    expect(early.take({ ...offered, file: 'b.json' })).toBeUndefined();
    expect(early.take({ ...offered, id: id(2) })).toBeUndefined();
    expect(early.take({ ...offered, bodyJson: JSON.stringify(body(1, 'y')) })).toBeUndefined();
    const written = { id: id(1), ...withOwnershipTag(b, DEFAULT_OWNERSHIP_TAG) };
    expect(await early.take(offered)).toEqual({ action: 'create', id: id(1), name: 'D1', file: 'a.json', desired: written, json: JSON.stringify(written) });
    expect(early.take(offered)).toBeUndefined();
  });

  it('settles reads still queued as not read when stopped, and starts none after', async () => {
    const api = client();
    const early = new EarlyPlans({ api, rules: { ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards }, concurrency: 1 });
    const offers = [1, 2, 3].map((n) => ({ id: id(n), file: `d${n}.json`, name: `D${n}`, body: body(n, 'x'), bodyJson: JSON.stringify(body(n, 'x')) }));
    for (const offer of offers) early.offer(offer);
    const changes = offers.map((offer) => early.take(offer));
    early.stop();
    early.offer({ ...(offers[0] as (typeof offers)[number]), file: 'late.json' });

    expect(await changes[1]).toBeUndefined();
    expect(await changes[2]).toBeUndefined();
    expect(early.take({ ...(offers[0] as (typeof offers)[number]), file: 'late.json' })).toBeUndefined();
  });
});

/** Accepts connections and never answers. */
async function silentServer(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  return {
    port,
    connections: () => sockets.size,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    },
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, pushDashboard, sourceStatus, waitForLive } from '../helpers/git-scope.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);
const SECRET = 'hook-secret-for-tests';

function githubPush(ref: string, secret = SECRET): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ ref, after: '0'.repeat(40), repository: { full_name: 'acme/dashboards' } });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature } };
}

async function post(url: string, request: { body: string; headers: Record<string, string> }): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/hooks/git`, { method: 'POST', body: request.body, headers: request.headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

// Each test starts a daemon and waits on git and the daemon several times: generous on a loaded 2-core machine.
describe('POST /hooks/git', { timeout: 120_000 }, () => {
  it('a signed GitHub push to the followed branch fetches at once; a bad signature is a 401 that fetches nothing', async () => {
    const { remote, server, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'hooked', 'v1');
    // --fetch 1h: only the webhook can bring the second commit in while the test runs.
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h'], { cwd, timeoutMs: 60_000, env: { DASHCD_WEBHOOK_SECRET: SECRET } });
    await waitForLive(d, first);
    const second = await pushDashboard(remote, 'hooked', 'v2');
    const fetchesBefore = server.fetches();

    const forged = await post(d.url, githubPush('refs/heads/main', 'not-the-secret'));
    expect(forged).toEqual({ status: 401, json: { error: { code: 401, message: expect.stringContaining('X-Hub-Signature-256') } } });
    const unsigned = await post(d.url, { body: '{"ref":"refs/heads/main"}', headers: { 'content-type': 'application/json', 'x-github-event': 'push' } });
    expect(unsigned.status).toBe(401);
    const other = await post(d.url, githubPush('refs/heads/feature'));
    expect(other).toEqual({ status: 202, json: { fetch: false, reason: 'push to refs/heads/feature, which is not followed' } });
    expect(server.fetches()).toBe(fetchesBefore);
    expect((await sourceStatus(d)).live?.commit).toBe(first);

    const accepted = await post(d.url, { ...githubPush('refs/heads/main'), headers: { ...githubPush('refs/heads/main').headers, 'x-github-delivery': 'delivery-1' } });
    expect(accepted).toEqual({ status: 202, json: { fetch: true, ref: 'refs/heads/main' } });
    await waitForLive(d, second);

    // The same delivery again, or its signed body under a fresh delivery id: answered, nothing fetched.
    const fetchesAfter = server.fetches();
    const replay = { status: 200, json: { fetch: false, reason: 'delivery already seen: its fetch was queued when it first arrived' } };
    expect(await post(d.url, { ...githubPush('refs/heads/main'), headers: { ...githubPush('refs/heads/main').headers, 'x-github-delivery': 'delivery-1' } })).toEqual(replay);
    expect(await post(d.url, { ...githubPush('refs/heads/main'), headers: { ...githubPush('refs/heads/main').headers, 'x-github-delivery': 'delivery-2' } })).toEqual(replay);
    expect(d.stdout()).toContain('delivery already seen');
    expect(server.fetches()).toBe(fetchesAfter);
  });

  it('a GitLab push with the right X-Gitlab-Token fetches; a wrong token is a 401', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'lab', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h'], { cwd, timeoutMs: 60_000, env: { DASHCD_WEBHOOK_SECRET: SECRET } });
    await waitForLive(d, first);
    const second = await pushDashboard(remote, 'lab', 'v2');
    const body = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main' });
    const headers = { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook' };
    expect((await post(d.url, { body, headers: { ...headers, 'x-gitlab-token': `${SECRET}x` } })).status).toBe(401);
    expect(await post(d.url, { body, headers: { ...headers, 'x-gitlab-token': SECRET } })).toEqual({ status: 202, json: { fetch: true, ref: 'refs/heads/main' } });
    await waitForLive(d, second);
  });

  it('refuses an oversized body with 413, other methods with 405, and answers 404 while no secret is set', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'x', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1h'], { cwd, timeoutMs: 60_000, env: { DASHCD_WEBHOOK_SECRET: SECRET } });
    await waitForLive(d, first);
    const huge = { body: JSON.stringify({ ref: 'refs/heads/main', pad: 'x'.repeat(3 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } };
    expect((await post(d.url, huge)).status).toBe(413);
    const get = await fetch(`${d.url}/hooks/git`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as { error: { code: number } }).error.code).toBe(405);
    await d.stop('SIGTERM');

    // A commit asking to send a variable to a host the operator did not allow (--allow-target grants that variable
    // to another URL only): refused at start, no environment started, no request to that host, no value logged.
    const { server: recorder, url: recorderUrl, requests } = await recordingServer();
    try {
      const evil = await remote.commit({ 'dashcd.yaml': `environments:\n  prod:\n    target: ${recorderUrl}\n    tokenEnv: TARGET_TOKEN\n` }, 'send the token elsewhere');
      await remote.push();
      const off = await scope.startDaemon(['--repo', url, '--fetch', '1h', '--allow-target', 'TARGET_TOKEN=https://prod.example.com'], {
        cwd,
        timeoutMs: 60_000,
        env: { TARGET_TOKEN: 'target-token-e2e' },
        until: 'listening',
      });
      // Until the first fetch has run, /status has no source block yet.
      const refused = await waitFor(async () => ((await sourceStatus(off))?.pending?.commit === evil ? sourceStatus(off) : undefined), { what: 'the commit refused' });
      expect(refused).toMatchObject({
        live: null,
        pending: { refused: [`environment 'prod': the operator has not allowed TARGET_TOKEN to be sent to ${recorderUrl} (--allow-target)`] },
        stale: true,
      });
      const answer = await post(off.url, githubPush('refs/heads/main'));
      expect(answer).toEqual({ status: 404, json: { error: { code: 404, message: expect.stringContaining('DASHCD_WEBHOOK_SECRET') } } });
      expect(off.stdout()).toContain('none of its environments is started');
      expect(off.stdout()).toContain('revision refused');
      expect(off.stdout()).not.toContain('target-token-e2e');
      expect(requests()).toBe(0);
    } finally {
      await new Promise((done) => recorder.close(done));
    }
  });
});

/** A stand-in for a host a commit names as its target: it only counts the requests that reach it. */
/**
 * A host that counts the requests carrying the token the test guards (`target-token-e2e`). Only those: the suite runs
 * many servers and clients beside this test, and a client of another test still retrying a port this host now has
 * once made the count 1 without any token (the daemon here sent nothing).
 */
async function recordingServer(): Promise<{ server: Server; url: string; requests: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    if (JSON.stringify(req.headers).includes('target-token-e2e') || (req.url ?? '').includes('target-token-e2e')) count++;
    res.writeHead(500).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}`, requests: () => count };
}

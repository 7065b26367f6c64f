import { createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HOOK_BODIES_BUDGET_BYTES, HOOK_BODY_LIMIT_BYTES } from '../../src/daemon/git-hook-route.js';
import { waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, pushDashboard, waitForLive } from '../helpers/git-scope.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);
const SECRET = 'hook-secret-for-tests';
/** The daemon's request timeout: a body that never comes is cut then (408), which is what an answer must beat. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A request whose head is sent and whose declared body never is; `answer` is what the server sent before closing. */
interface HeldRequest {
  readonly socket: Socket;
  /** Whether any answer has arrived yet. */
  answered(): boolean;
  /** Everything the server sent, once it closed the connection; with how long after the head that was. */
  readonly closed: Promise<{ text: string; ms: number }>;
}

function holdRequest(port: number, headers: Record<string, string>): HeldRequest {
  const socket = connect(port, '127.0.0.1');
  const started = performance.now();
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString('latin1')));
  const closed = new Promise<{ text: string; ms: number }>((resolve) => {
    socket.on('error', () => undefined);
    socket.once('close', () => resolve({ text, ms: performance.now() - started }));
  });
  const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`POST /hooks/git HTTP/1.1\r\n${head.join('')}\r\n`);
  return { socket, answered: () => text !== '', closed };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  json: unknown;
}

function parseAnswer(text: string): RawAnswer {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]), headers, json: JSON.parse(body) as unknown };
}

function githubPush(ref: string, secret = SECRET): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ ref, after: '0'.repeat(40), repository: { full_name: 'acme/dashboards' } });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature } };
}

async function post(url: string, request: { body: string; headers: Record<string, string> }): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}/hooks/git`, { method: 'POST', body: request.body, headers: request.headers });
  return { status: response.status, json: await response.json() };
}

async function hookedDaemon(): Promise<DaemonChild> {
  const { remote, url, cwd } = await fixture();
  const first = await pushDashboard(remote, 'hooked', 'v1');
  const d = await scope.startDaemon(['--repo', url, '--fetch', '1h'], { cwd, timeoutMs: 60_000, env: { DASHCD_WEBHOOK_SECRET: SECRET } });
  await waitForLive(d, first);
  return d;
}

// Each test starts a daemon following a repository: generous on a loaded 2-core machine.
describe('POST /hooks/git under a flood of large declared bodies', { timeout: 120_000 }, () => {
  it('answers every unsigned request, or one with a wrong GitLab token, 401 at once and closes, without its body being sent', async () => {
    const d = await hookedDaemon();
    const port = Number(new URL(d.url).port);
    const declared = { 'content-length': String(HOOK_BODY_LIMIT_BYTES) };
    const unsigned = Array.from({ length: 150 }, () => holdRequest(port, declared));
    const wrongToken = Array.from({ length: 50 }, () => holdRequest(port, { ...declared, 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': `${SECRET}x` }));

    const answers = await Promise.all([...unsigned, ...wrongToken].map((request) => request.closed));
    for (const [i, { text, ms }] of answers.entries()) {
      const answer = parseAnswer(text);
      expect(answer.status, text).toBe(401);
      expect(answer.headers.connection).toBe('close');
      const message = i < unsigned.length ? 'unsigned webhook: send X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab)' : 'X-Gitlab-Token is not DASHCD_WEBHOOK_SECRET';
      expect(answer.json).toEqual({ error: { code: 401, message } });
      // Answered on its head: long before the request timeout would cut a body that never comes.
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
    }
    expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
    expect(d.process.exitCode).toBeNull();
  });

  it('holds the bodies being read at once within one budget: past it a signed-looking request is a 503 with Retry-After, and the budget comes back', async () => {
    const d = await hookedDaemon();
    const port = Number(new URL(d.url).port);
    // Each declares the largest body and sends none of it, as a client stalling mid-upload does: a forged signature
    // is only found out once the body is read, so each holds its share of the budget meanwhile.
    const fits = HOOK_BODIES_BUDGET_BYTES / HOOK_BODY_LIMIT_BYTES;
    const forged = { 'content-length': String(HOOK_BODY_LIMIT_BYTES), 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` };
    const held = Array.from({ length: fits + 2 }, () => holdRequest(port, forged));

    await waitFor(() => held.filter((request) => request.answered()).length >= 2, { timeoutMs: REQUEST_TIMEOUT_MS / 2, what: 'the requests past the budget answered' });
    const refused = held.filter((request) => request.answered());
    expect(refused).toHaveLength(2);
    for (const { text } of await Promise.all(refused.map((request) => request.closed))) {
      const answer = parseAnswer(text);
      expect(answer.status, text).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers.connection).toBe('close');
      expect(answer.json).toEqual({ error: { code: 503, message: 'Too many webhook deliveries are being read at once; retry after 1 s.' } });
    }
    // While the budget is spent, a genuine delivery waits its turn too (the host retries; the fetch loop still runs).
    expect((await post(d.url, githubPush('refs/heads/feature'))).status).toBe(503);

    // The stalled clients go away: what they held is free again and a signed push is read and judged.
    for (const request of held) request.socket.destroy();
    const accepted = await waitFor(async () => {
      const answer = await post(d.url, githubPush('refs/heads/feature'));
      return answer.status === 503 ? undefined : answer;
    }, { what: 'the budget given back' });
    expect(accepted).toEqual({ status: 202, json: { fetch: false, reason: 'push to refs/heads/feature, which is not followed' } });
  });
});

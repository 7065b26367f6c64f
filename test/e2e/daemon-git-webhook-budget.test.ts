import { createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HOOK_BODIES_BUDGET_BYTES, HOOK_BODY_DEADLINE_MS, HOOK_BODY_LIMIT_BYTES } from '../../src/daemon/git-hook-route.js';
import type { DaemonChild } from '../helpers/daemon.js';
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

  it('stalled deliveries that declare the largest body and send none of it hold nothing: a genuine push is still read; each stalled one is cut with 408 after the body deadline', async () => {
    const d = await hookedDaemon();
    const port = Number(new URL(d.url).port);
    // More than the budget would hold if declared sizes counted, each with a forged signature (found out only once read).
    const forged = { 'content-length': String(HOOK_BODY_LIMIT_BYTES), 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` };
    const held = Array.from({ length: 2 * (HOOK_BODIES_BUDGET_BYTES / HOOK_BODY_LIMIT_BYTES) }, () => holdRequest(port, forged));
    // They held the budget by their declared sizes before: real deliveries got 503 until the stalled ones left.
    expect(await post(d.url, githubPush('refs/heads/feature'))).toEqual({ status: 202, json: { fetch: false, reason: 'push to refs/heads/feature, which is not followed' } });
    for (const { text, ms } of await Promise.all(held.map((request) => request.closed))) {
      const answer = parseAnswer(text);
      expect(answer.status, text).toBe(408);
      expect(answer.headers.connection).toBe('close');
      expect(answer.json).toEqual({ error: { code: 408, message: `The body did not arrive within ${HOOK_BODY_DEADLINE_MS / 1000} s of the headers.` } });
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
    }
    expect(d.process.exitCode).toBeNull();
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, MAIN_JS, unusedPort, type Project } from '../helpers/cli.js';
import { dashboardYaml } from '../helpers/daemon.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

let project: Project | undefined;
let target: TestServer | undefined;
let daemon: ChildProcess | undefined;
afterEach(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    const exited = new Promise((resolve) => daemon?.once('exit', resolve));
    daemon.kill('SIGKILL');
    await exited;
  }
  await target?.close();
  await project?.cleanup();
  project = target = daemon = undefined;
});

/** One GET on a connection of its own: 800 concurrent calls are 800 open descriptors. Undefined: closed without an answer. */
function statusOnNewConnection(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

// The status-only listener (a remote target) is the one that takes GitHub's webhooks from the internet: past its
// descriptors it must answer as `serve` does (a 503 with Retry-After), not drop connections unanswered.
describe('the daemon with a remote target under ulimit -n 512', () => {
  it('answers 800 concurrent connections to its status-only listener with 200 or a retryable 503, and keeps running', async () => {
    target = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'DataExport'] });
    project = await createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const port = await unusedPort();
    const command = `ulimit -n 512; exec "${process.execPath}" "${MAIN_JS}" daemon --listen 127.0.0.1:${port} --target "${target.url}" --resync 1h --poll 1h`;
    const child = spawn('sh', ['-c', command], { cwd: project.root, env: { PATH: process.env.PATH ?? '', HOME: project.root, DT_API_TOKEN: target.token }, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon = child;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const healthz = `http://127.0.0.1:${port}/healthz`;
    await waitFor(async () => (await statusOnNewConnection(healthz)) === 200, {
      what: 'the daemon to listen',
      failFast: () => (child.exitCode !== null ? `daemon exited ${child.exitCode}: ${output}` : undefined),
    });

    const answers = await Promise.all(Array.from({ length: 800 }, () => statusOnNewConnection(healthz)));
    // Each connection gets an answer: past the descriptor budget a 503 to retry, never a connection dropped unanswered.
    for (const status of answers) expect([200, 503]).toContain(status);
    expect(answers.filter((status) => status === 200).length).toBeGreaterThan(0);

    await waitFor(async () => (await statusOnNewConnection(healthz)) === 200, {
      what: 'the daemon to answer again',
      failFast: () => (child.exitCode !== null || child.signalCode !== null ? `daemon exited ${child.exitCode ?? child.signalCode}: ${output}` : undefined),
    });
    expect(child.exitCode, output).toBeNull();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
  });
});

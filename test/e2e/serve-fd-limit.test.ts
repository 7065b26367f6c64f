import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/schema/error-envelope.js';
import { createProject, MAIN_JS, runDashcd, type Project } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

let project: Project | undefined;
let serve: ChildProcess | undefined;
afterEach(async () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    const exited = new Promise((resolve) => serve?.once('exit', resolve));
    serve.kill('SIGKILL');
    await exited;
  }
  await project?.cleanup();
  project = serve = undefined;
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** One GET on a connection of its own (no keep-alive agent): 200 concurrent calls are 200 open descriptors. */
function getOnNewConnection(url: string, token: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { authorization: `Api-Token ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashcd serve under ulimit -n 128', () => {
  it('starts, answers 200 concurrent connections with 200 or a retryable 503, and goes on serving', async () => {
    project = await createProject();
    const data = join(project.root, 'data');
    // Set-up, in this process (the real command, as main.ts runs it): only serve is under test here.
    const created = await runDashcd(['token', 'create', '--data', data, '--scopes', 'ReadConfig', '--name', 'load'], { cwd: project.root });
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1) ?? '';
    const child = spawn('sh', ['-c', `ulimit -n 128; exec "${process.execPath}" "${MAIN_JS}" serve --port 0 --data "${data}"`], { cwd: project.root, stdio: ['ignore', 'pipe', 'pipe'] });
    serve = child;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const base = await waitFor(() => /dashcd serving (http:\/\/\S+\/e\/local)/.exec(output)?.[1], {
      what: 'serve to listen',
      failFast: () => (child.exitCode !== null ? `serve exited ${child.exitCode}: ${output}` : undefined),
    });
    expect(await readFile(`/proc/${child.pid}/limits`, 'utf8')).toMatch(/^Max open files\s+128\s/m);

    const url = `${base}/api/config/v1/dashboards`;
    const answers = await Promise.all(Array.from({ length: 200 }, () => getOnNewConnection(url, token)));
    for (const answer of answers) {
      if (answer.status === 200) continue;
      expect(answer.status, answer.body).toBe(503);
      expect(answer.retryAfter).toBe('1');
      expect(ErrorEnvelope.parse(JSON.parse(answer.body)).error.message).toMatch(/limit of open connections \(file descriptors\)/);
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);

    expect((await getOnNewConnection(url, token)).status).toBe(200);
    expect(child.exitCode).toBeNull();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
  });
});

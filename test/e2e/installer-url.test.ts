import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { createProject, runDashcd } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('dashcd installer-url', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ scopes: ['InstallerDownload'] });
  });
  afterAll(() => server.close());

  it('prints the unix/default installer address for a target, without the token by default', async () => {
    const result = await runDashcd(['installer-url', '--target', 'https://abc123.live.dynatrace.com', '--arch', 'arm'], {
      cwd: tmpdir(),
      env: { DT_API_TOKEN: 'dt0c01.SECRET' },
    });
    expect(result.code).toBe(ExitCode.Success);
    expect(result.stdout.trim()).toBe('https://abc123.live.dynatrace.com/api/v1/deployment/installer/agent/unix/default/latest?arch=arm&flavor=default');
  });

  it('without --target or DT_ENV_URL prints the local environment\'s address, which its help names (it named the bare listener)', async () => {
    const project = await createProject();
    try {
      const result = await runDashcd(['installer-url'], { cwd: project.root, env: {} });
      expect(result.code, result.stderr).toBe(ExitCode.Success);
      expect(result.stdout.trim()).toBe('http://127.0.0.1:8080/e/local/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&flavor=default');
      const help = await runDashcd(['installer-url', '--help'], { cwd: project.root, env: {} });
      expect(help.stdout.replace(/\s+/g, ' ')).toContain('http://127.0.0.1:8080/e/local when none runs');
    } finally {
      await project.cleanup();
    }
  });

  it('appends the token only with --with-token, and that address downloads the script from the embedded API', async () => {
    const result = await runDashcd(['installer-url', '--target', server.url, '--with-token'], { cwd: tmpdir(), env: { DT_API_TOKEN: server.token } });
    expect(result.code).toBe(ExitCode.Success);
    const url = result.stdout.trim();
    expect(url).toContain(`Api-Token=${encodeURIComponent(server.token)}`);
    const response = await request(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect((await response.body.text()).startsWith('#!/bin/sh')).toBe(true);
  });

  it('refuses an unknown --arch and --with-token without a token', async () => {
    const badArch = await runDashcd(['installer-url', '--target', server.url, '--arch', 'mips'], { cwd: tmpdir(), env: {} });
    expect(badArch.code).toBe(ExitCode.Usage);
    expect(badArch.stderr).toContain('--arch must be one of all, x86, ppc, ppcle, sparc, arm, s390');
    const noToken = await runDashcd(['installer-url', '--target', server.url, '--with-token'], { cwd: tmpdir(), env: {} });
    expect(noToken.code).toBe(ExitCode.TargetUnavailable);
    expect(noToken.stderr).toContain('--with-token needs DT_API_TOKEN');
  });

  it('takes an environment of dashcd.yaml with --env: its target and its tokenEnv, as the operator grants them', async () => {
    const project = await createProject({
      'dashcd.yaml': 'environments:\n  dev: {}\n  prod:\n    target: https://prod.example.com/e/abc\n    tokenEnv: PROD_TOKEN\n',
      'dashboards/.keep': '',
    });
    try {
      const run = (argv: string[], env: Record<string, string> = {}) => runDashcd(['installer-url', ...argv], { cwd: project.root, env });
      const prod = await run(['--env', 'prod', '--with-token'], { PROD_TOKEN: 'prod-secret' });
      expect(prod.code, prod.stderr).toBe(ExitCode.Success);
      expect(prod.stdout.trim()).toBe('https://prod.example.com/e/abc/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&flavor=default&Api-Token=prod-secret');
      const dev = await run(['--env', 'dev']);
      expect(dev.stdout.trim()).toBe('http://127.0.0.1:8080/e/dev/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&flavor=default');
      // While the project's serve runs, where it listens (it said 8080 whatever --listen had moved it to).
      const serving = await startTestServer({ dataDir: join(project.root, '.dashcd'), keepDataDir: true });
      try {
        expect((await run(['--env', 'dev'])).stdout.trim()).toBe(`${serving.baseUrl}/e/dev/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&flavor=default`);
      } finally {
        await serving.close();
      }
      // An address given is used as it always was, environments or not.
      const given = await run(['--target', 'https://abc123.live.dynatrace.com']);
      expect(given.code, given.stderr).toBe(ExitCode.Success);
      expect(given.stdout.trim()).toBe('https://abc123.live.dynatrace.com/api/v1/deployment/installer/agent/unix/default/latest?arch=x86&flavor=default');
      // --env was ignored beside --target: the address and the token were --target's and DT_API_TOKEN's.
      const both = await run(['--target', 'https://abc123.live.dynatrace.com', '--env', 'prod', '--with-token'], { PROD_TOKEN: 'prod-secret', DT_API_TOKEN: 'other' });
      expect(both.code).toBe(ExitCode.Usage);
      expect(both.stderr).toContain('--target and --env both name the environment: give one');
      expect(both.stdout).toBe('');
      // It printed http://127.0.0.1:8080/e/local/…, which nothing serves in such a project.
      const none = await run([]);
      expect(none.code).toBe(ExitCode.Usage);
      expect(none.stderr).toContain('installer-url acts on one environment: choose it with --env NAME');
      const ungranted = await run(['--env', 'prod', '--with-token'], { PROD_TOKEN: 'prod-secret', DASHCD_ALLOW_TARGETS: 'OTHER=https://other.example.com' });
      expect(ungranted.code).toBe(ExitCode.TargetUnavailable);
      expect(ungranted.stdout).toBe('');
      expect(ungranted.stderr).not.toContain('prod-secret');
    } finally {
      await project.cleanup();
    }
  });
});

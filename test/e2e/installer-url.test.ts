import { tmpdir } from 'node:os';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runDashcd } from '../helpers/cli.js';
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
});

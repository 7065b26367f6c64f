import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openGitSource } from '../../../src/source/git-source.js';
import { inheritedEnvironment } from '../../../src/lib/git-environment.js';
import { gitErrorDetail } from '../../../src/source/run-git.js';
import { captureLog } from '../../helpers/log-capture.js';
import { createGitRemote } from '../../helpers/git-remote.js';

const SECRETS = { DASHCD_GIT_TOKEN: 'git-token-probe-1', DASHCD_WEBHOOK_SECRET: 'hook-secret-probe-2', DT_API_TOKEN: 'dt0c01.PROBE.3', AWS_SECRET_ACCESS_KEY: 'aws-probe-4' };

const folders: string[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('what git sees of the daemon', () => {
  it('a fetch from a file:// remote runs git with none of the daemon’s secrets in its environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-git-env-'));
    folders.push(dir);
    const remote = await createGitRemote(dir);
    await remote.commit({ 'dashboards/a.yaml': 'x: 1\n' }, 'one');
    await remote.push();
    // A `git` first on PATH that records the environment it was started with, then runs the real git: what every
    // hook, helper and ssh that git starts would inherit.
    const seen = join(dir, 'seen-env');
    await writeFile(join(dir, 'git'), `#!/bin/sh\nenv >> '${seen}'\necho --- >> '${seen}'\nexec '${realGit()}' "$@"\n`);
    await chmod(join(dir, 'git'), 0o755);
    for (const [name, value] of Object.entries(SECRETS)) vi.stubEnv(name, value);
    vi.stubEnv('PATH', `${dir}:${process.env.PATH ?? ''}`);
    vi.stubEnv('LANG', 'C.UTF-8');

    const source = await openGitSource({ url: remote.fileUrl, follow: { branch: 'main' }, root: join(dir, 'mirrors'), credentials: { token: SECRETS.DASHCD_GIT_TOKEN }, log: captureLog().log });
    const revision = await source.fetch();
    await source.checkout(revision);

    const recorded = await readFile(seen, 'utf8');
    expect(recorded.split('---').length).toBeGreaterThan(3);
    expect(recorded).toContain('GIT_TERMINAL_PROMPT=0');
    expect(recorded).toContain('LANG=C.UTF-8');
    expect(recorded).toMatch(/^PATH=/m);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(recorded).not.toContain(name);
      expect(recorded).not.toContain(value);
    }
    // A file:// remote needs no token, so not even its Basic header is handed over.
    expect(recorded).not.toContain(Buffer.from(`x-access-token:${SECRETS.DASHCD_GIT_TOKEN}`).toString('base64'));
  });
});

describe('inheritedEnvironment', () => {
  it('keeps paths, locale, proxies, CA files, the SSH agent and the operator’s GIT_ settings', () => {
    const kept = {
      PATH: '/bin',
      HOME: '/home/d',
      LANG: 'C',
      LC_ALL: 'C',
      TMPDIR: '/tmp',
      https_proxy: 'http://p:3128',
      HTTPS_PROXY: 'http://p:3128',
      NO_PROXY: 'localhost',
      SSL_CERT_FILE: '/ca.pem',
      SSH_AUTH_SOCK: '/run/agent',
      GIT_SSL_CAINFO: '/ca.pem',
      GIT_TRACE: '1',
      XDG_CONFIG_HOME: '/cfg',
    };
    expect(inheritedEnvironment({ ...kept, ...SECRETS, NODE_OPTIONS: '--inspect', DASHCD_GIT_USERNAME: 'u', UNDEFINED: undefined })).toEqual(kept);
  });

  it("keeps Windows' own spellings of what git needs there, in any case (git got no Path, SystemRoot or home)", () => {
    const windows = { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', ComSpec: 'cmd.exe', PATHEXT: '.EXE', USERPROFILE: 'C:\\Users\\d', HOMEDRIVE: 'C:', HOMEPATH: '\\Users\\d', SystemDrive: 'C:' };
    expect(inheritedEnvironment({ ...windows, ...SECRETS, Dt_Api_Token: 'probe', git_config_count: '1' })).toEqual(windows);
  });

  it('drops GIT_CONFIG_* pairs, which could carry a header to any remote', () => {
    expect(inheritedEnvironment({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: 'Authorization: x', GIT_CONFIG_PARAMETERS: "'a.b'='c'", GIT_CONFIG_GLOBAL: '/g' })).toEqual({
      GIT_CONFIG_GLOBAL: '/g',
    });
  });
});

describe('gitErrorDetail', () => {
  it("puts git's cause first, not its closing advice", () => {
    const stderr = "fatal: '/nope/r.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n";
    expect(gitErrorDetail(stderr)).toBe("fatal: '/nope/r.git' does not appear to be a git repository / fatal: Could not read from remote repository.");
    expect(gitErrorDetail('remote: Invalid username or password.\nfatal: Authentication failed for x\n')).toBe('remote: Invalid username or password. / fatal: Authentication failed for x');
  });

  it('falls back to the last three lines when git names no cause', () => {
    expect(gitErrorDetail('a\n\n  b  \nc\nd\n')).toBe('b / c / d');
    expect(gitErrorDetail('\n')).toBe('');
  });
});

function realGit(): string {
  return execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
}

import { describe, expect, it } from 'vitest';
import { followProblem } from '../../src/source/follow.js';
import { checkRepositoryUrl, credentialSecrets, gitEnvironment } from '../../src/source/git-credentials.js';
import { classifyGitFailure } from '../../src/source/source-error.js';
import { mirrorName } from '../../src/source/git-source.js';

describe('gitEnvironment', () => {
  it('scopes the token header to the repository origin and switches credential helpers off', () => {
    const env = gitEnvironment('https://gitlab.example.com:8443/org/dash.git', { token: 't0k', username: 'oauth2' });
    expect(env).toMatchObject({
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.https://gitlab.example.com:8443/.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from('oauth2:t0k').toString('base64')}`,
      GIT_CONFIG_KEY_1: 'credential.helper',
      GIT_CONFIG_VALUE_1: '',
    });
  });

  it('sends no header to ssh or file remotes, and allows no command-running transports', () => {
    const env = gitEnvironment('git@github.com:org/dash.git', { token: 't0k' });
    expect(env.GIT_CONFIG_COUNT).toBeUndefined();
    expect(env.GIT_ALLOW_PROTOCOL?.split(':')).not.toContain('ext');
  });

  it('passes the ssh key through GIT_SSH_COMMAND with every path single-quoted for the shell', () => {
    const env = gitEnvironment('ssh://git@host/repo', { sshKeyFile: "/keys/it's here", sshKnownHostsFile: '/etc/kh' });
    expect(env.GIT_SSH_COMMAND).toBe(
      "ssh -i '/keys/it'\\''s here' -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile='/etc/kh' -o StrictHostKeyChecking=yes",
    );
  });

  it('lists the token and its Basic encoding as secrets to scrub', () => {
    expect(credentialSecrets({ token: 'a b' })).toEqual(['a b', Buffer.from('x-access-token:a b').toString('base64'), 'a%20b']);
    expect(credentialSecrets({})).toEqual([]);
  });
});

describe('checkRepositoryUrl', () => {
  it('refuses URLs git would read as an option or that carry a password', () => {
    expect(() => checkRepositoryUrl('--upload-pack=touch /tmp/x')).toThrow(/not a repository URL/);
    expect(() => checkRepositoryUrl('https://me:secret@host/r.git')).toThrow(/DASHCD_GIT_TOKEN/);
    expect(() => checkRepositoryUrl('https://me@host/r.git')).not.toThrow();
    expect(() => checkRepositoryUrl('git@host:org/r.git')).not.toThrow();
  });
});

describe('followProblem', () => {
  it('accepts branch names with slashes and tag globs', () => {
    expect(followProblem({ branch: 'release/2026-11' })).toBeUndefined();
    expect(followProblem({ tagPattern: 'release-*' })).toBeUndefined();
    expect(followProblem({ tagPattern: 'v*.*' })).toBeUndefined();
  });

  it.each(['', '-x', 'a..b', 'a b', 'a~1', 'x.lock', 'a/', 'a?b', 'a[b]'])('refuses the branch %j', (branch) => {
    expect(followProblem({ branch })).toMatch(/not a valid git ref name/);
  });
});

describe('classifyGitFailure', () => {
  it('tells a missing branch, refused credentials and an unreachable remote apart', () => {
    expect(classifyGitFailure("fatal: couldn't find remote ref refs/heads/gone")).toBe('ref-not-found');
    expect(classifyGitFailure("fatal: could not read Username for 'http://h': terminal prompts disabled")).toBe('auth-failed');
    expect(classifyGitFailure("fatal: unable to access 'http://h/': Failed to connect to h port 80: Connection refused")).toBe('unreachable');
    expect(classifyGitFailure('fatal: bad object')).toBe('git-failed');
  });
});

describe('mirrorName', () => {
  it('is readable and differs for URLs that slug alike', () => {
    expect(mirrorName('https://github.com/org/dash.git')).toMatch(/^github\.com-org-dash-[0-9a-f]{12}$/);
    expect(mirrorName('https://github.com/org/dash')).not.toBe(mirrorName('https://github.com/org/dash.git'));
  });
});

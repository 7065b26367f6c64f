import { describe, expect, it } from 'vitest';
import { followProblem } from '../../../src/source/follow.js';
import { checkRepositoryUrl, credentialSecrets, gitEnvironment, redactUrlCredentials } from '../../../src/source/git-credentials.js';
import { classifyGitFailure, type SourceError } from '../../../src/source/source-error.js';
import { mirrorName } from '../../../src/source/git-source.js';

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

  it('without credentials: never a prompt, only the five plain transports, no header and no ssh command', () => {
    const plain = { GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: 'https:http:ssh:git:file', GCM_INTERACTIVE: 'never' };
    expect(gitEnvironment('https://h.example.com/r.git')).toEqual(plain);
    expect(gitEnvironment('https://h.example.com/r.git', { sshKnownHostsFile: '/kh', username: 'u' })).toEqual(plain);
  });

  it('sends the header to a plain http origin too, and to no other transport', () => {
    expect(gitEnvironment('http://127.0.0.1:8080/r.git', { token: 't' })).toMatchObject({ GIT_CONFIG_KEY_0: 'http.http://127.0.0.1:8080/.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from('x-access-token:t').toString('base64')}` });
    expect(gitEnvironment('ftp://h.example.com/r.git', { token: 't' }).GIT_CONFIG_COUNT).toBeUndefined();
    expect(gitEnvironment('file:///srv/r.git', { token: 't' }).GIT_CONFIG_COUNT).toBeUndefined();
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
    expect(credentialSecrets({ token: '' })).toEqual([]);
    expect(credentialSecrets({ token: 't', username: 'me' })).toEqual(['t', Buffer.from('me:t').toString('base64'), 't']);
  });
});

describe('checkRepositoryUrl', () => {
  const credentials = /carries credentials before its @; give git the token in DASHCD_GIT_TOKEN \(and the user in DASHCD_GIT_USERNAME\)/;

  it('refuses URLs git would read as an option, and empty ones', () => {
    expect(() => checkRepositoryUrl('--upload-pack=touch /tmp/x')).toThrow("not a repository URL: '--upload-pack=touch /tmp/x'");
    expect(() => checkRepositoryUrl(' ')).toThrow(/not a repository URL/);
    expect(() => checkRepositoryUrl('')).toThrow(/not a repository URL/);
  });

  it('refuses git remote helpers (ext::, fd::, any <transport>::) before a daemon starts on them', () => {
    expect(() => checkRepositoryUrl("ext::sh -c 'touch /tmp/x'")).toThrow("git's ext:: remote helper is not followed: give an https, ssh (git@host:path), git or file URL, or a local path");
    expect(() => checkRepositoryUrl('fd::3')).toThrow(/fd:: remote helper/);
    expect(() => checkRepositoryUrl('persistent-https::host/r')).toThrow(/persistent-https:: remote helper/);
    for (const ok of ['https://host/r.git', 'git@host:org/r.git', 'ssh://git@host:22/r.git', 'file:///srv/r.git']) expect(() => checkRepositoryUrl(ok), ok).not.toThrow();
  });

  it.each([
    'https://me:secret@host/r.git',
    'http://TOKEN@host/r.git',
    'HTTPS://ghp_abc@host/r.git',
    'https://user%3ASECRET@host/r.git',
    'https://user%3aSECRET@host/r.git',
    'https://a@b@host/r.git',
    'git://tok@host/r.git',
    'ssh://git:pw@host/r.git',
    'ssh://git%3Apw@host/r.git',
    'xssh://git@host/r.git',
    'sshx://git@host/r.git',
    'user:pw@host:org/r.git',
    'user%3Apw@host:org/r.git',
  ])('refuses credentials in %s, as an auth failure', (url) => {
    expect(() => checkRepositoryUrl(url)).toThrow(credentials);
    try {
      checkRepositoryUrl(url);
    } catch (error) {
      expect((error as SourceError).code).toBe('auth-failed');
    }
  });

  it.each(['https://host/r.git', 'https://host/r@v2.git', 'ssh://git@host/r.git', 'SSH://git@host/r.git', 'git+ssh://git@host/r.git', 'ssh+git://git@host/r.git', 'ssh://git@host/a:b@c.git', 'git@host:org/r.git', 'git@host:org/a:b@c.git', 'file:///srv/r@1.git', '/srv/a:b@c/r.git', 'host:org/r.git'])(
    'accepts %s (no secret before an @)',
    (url) => {
      expect(() => checkRepositoryUrl(url)).not.toThrow();
    },
  );
});

describe('redactUrlCredentials', () => {
  it('redacts what stands before the @ of every URL, keeping an SSH user name', () => {
    expect(redactUrlCredentials("fatal: unable to access 'http://TOKEN@h/r.git/': 403 and https://u:p@x/y")).toBe("fatal: unable to access 'http://[REDACTED]@h/r.git/': 403 and https://[REDACTED]@x/y");
    expect(redactUrlCredentials('ssh://git@host/r and ssh://git:pw@host/r and ssh+git://u%3Ap@h/')).toBe('ssh://git@host/r and ssh://[REDACTED]@host/r and ssh+git://[REDACTED]@h/');
    expect(redactUrlCredentials('https://host/a@b and mail me@example.com')).toBe('https://host/a@b and mail me@example.com');
  });

  it('redacts a URL glued to a long word, and reads any text once', () => {
    expect(redactUrlCredentials(`remote: ${'x'.repeat(100)}https://TOKEN@h/r`)).toBe(`remote: ${'x'.repeat(100)}https://[REDACTED]@h/r`);
    expect(redactUrlCredentials(`remote: ${'x'.repeat(100)}ssh://git:pw@h/r`)).toBe(`remote: ${'x'.repeat(100)}ssh://[REDACTED]@h/r`);
    // What a git server can print: from every word start the old pattern ran to the text's end (4.9 s for 100 kB).
    const flood = 'a.'.repeat(500_000);
    expect(redactUrlCredentials(`${flood} https://u:p@x/`)).toBe(`${flood} https://[REDACTED]@x/`);
  });

  it('keeps a malformed percent-encoding as it is when deciding', () => {
    expect(redactUrlCredentials('ssh://git%zz@host/r')).toBe('ssh://git%zz@host/r');
    expect(redactUrlCredentials('ssh://g:%zz@host/r')).toBe('ssh://[REDACTED]@host/r');
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

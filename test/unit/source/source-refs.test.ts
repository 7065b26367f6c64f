import { describe, expect, it } from 'vitest';
import { describeFollow, fetchRefspec, followProblem, followsRef, mirrorRef, remoteRefName } from '../../../src/source/follow.js';
import { parseRevision } from '../../../src/source/revision.js';
import { classifyGitFailure, SourceError } from '../../../src/source/source-error.js';

describe('what the daemon follows, as refs', () => {
  it('names a branch as itself and a tag pattern as tags <pattern>', () => {
    expect(describeFollow({ branch: 'main' })).toBe('main');
    expect(describeFollow({ tagPattern: 'release-*' })).toBe('tags release-*');
  });

  it('keeps a branch in refs/dashcd/heads/ and tags in refs/dashcd/tags/ of the mirror', () => {
    expect(mirrorRef({ branch: 'release/2026' })).toBe('refs/dashcd/heads/release/2026');
    expect(mirrorRef({ tagPattern: 'v*' })).toBe('refs/dashcd/tags/v*');
    expect(fetchRefspec({ branch: 'main' })).toBe('+refs/heads/main:refs/dashcd/heads/main');
    expect(fetchRefspec({ tagPattern: 'release-*' })).toBe('+refs/tags/*:refs/dashcd/tags/*');
  });

  it("gives a mirror ref the remote's name, and leaves any other ref as it is", () => {
    expect(remoteRefName('refs/dashcd/tags/release-7')).toBe('refs/tags/release-7');
    expect(remoteRefName('refs/dashcd/heads/main')).toBe('refs/heads/main');
    expect(remoteRefName('refs/heads/refs/dashcd/x')).toBe('refs/heads/refs/dashcd/x');
  });
});

describe('followProblem: each rule of git check-ref-format that matters', () => {
  // `*` too: a branch is one name, and `*` would make the fetch mirror every branch of the repository.
  it.each(['/a', 'a.', 'a//b', 'a@{1}', 'a:b', 'a^b', 'a\\b', 'a\tb', 'a\x01b', 'a\x7fb', 'a\x1fb', '*', 'release-*'])('refuses the branch %j', (branch) => {
    expect(followProblem({ branch })).toBe(`--branch '${branch}' is not a valid git ref name`);
  });

  it('accepts names that only look close to a refused one', () => {
    for (const branch of ['a.b', 'a/b', 'a@b', 'a{1}', 'lock', 'a.locked', 'a-', '.a', 'x/-y', 'a.lockb', 'é']) expect(followProblem({ branch }), branch).toBeUndefined();
  });

  it('names the tag pattern as given, and lets * be its only glob', () => {
    expect(followProblem({ tagPattern: '*' })).toBeUndefined();
    expect(followProblem({ tagPattern: 'v**' })).toBeUndefined();
    expect(followProblem({ tagPattern: 'v?' })).toBe("--tag-pattern 'v?' is not a valid git ref name");
    expect(followProblem({ tagPattern: '-*' })).toBe("--tag-pattern '-*' is not a valid git ref name");
    expect(followProblem({ tagPattern: '' })).toBe("--tag-pattern '' is not a valid git ref name");
  });
});

describe('followsRef for tag patterns', () => {
  it('matches the whole tag name, * within one segment, other regex characters literally', () => {
    expect(followsRef({ tagPattern: 'release-*' }, 'refs/tags/release-')).toBe(true);
    expect(followsRef({ tagPattern: 'release-*' }, 'refs/tags/xrelease-1')).toBe(false);
    expect(followsRef({ tagPattern: 'release-*' }, 'refs/tags/release-1/x')).toBe(false);
    expect(followsRef({ tagPattern: 'v1.*' }, 'refs/tags/v1.2')).toBe(true);
    expect(followsRef({ tagPattern: 'a+b' }, 'refs/tags/a+b')).toBe(true);
    expect(followsRef({ tagPattern: 'a+b' }, 'refs/tags/aab')).toBe(false);
    expect(followsRef({ tagPattern: '*-rc' }, 'refs/tags/1-rc-2')).toBe(false);
    expect(followsRef({ tagPattern: '*' }, 'tags/v1')).toBe(false);
    expect(followsRef({ tagPattern: '*' }, 'refs/heads/v1')).toBe(false);
  });
});

describe('classifyGitFailure: each message git prints', () => {
  it.each([
    ['fatal: unable to access: Could not resolve host: h', 'unreachable'],
    ['fatal: Failed to connect to h', 'unreachable'],
    ['ssh: connect to host h port 22: Connection refused', 'unreachable'],
    ['ssh: connect to host h port 22: Connection timed out', 'unreachable'],
    ['Connection reset by peer', 'unreachable'],
    ['ssh: connect to host h: Operation timed out', 'unreachable'],
    ['fatal: Could not read from remote repository.', 'unreachable'],
    ["fatal: 'x' does not appear to be a git repository", 'unreachable'],
    ['SSL certificate problem: self-signed certificate', 'unreachable'],
    ['gnutls_handshake() failed: TLS', 'unreachable'],
    ['server certificate verification failed', 'unreachable'],
    ['curl 52 Empty reply from server', 'unreachable'],
    ['fatal: the remote end hung up unexpectedly', 'unreachable'],
    ["fatal: Authentication failed for 'https://h/r'", 'auth-failed'],
    ["fatal: could not read Username for 'https://h'", 'auth-failed'],
    ["fatal: could not read Password for 'https://u@h'", 'auth-failed'],
    ['The requested URL returned error: 403', 'auth-failed'],
    ['The requested URL returned error: 401', 'auth-failed'],
    ['git@h: Permission denied (publickey).', 'auth-failed'],
    ['fatal: could not read: terminal prompts disabled', 'auth-failed'],
    ['error: no such ref was fetched', 'ref-not-found'],
    ['error 4030 in object', 'git-failed'],
    ['', 'git-failed'],
  ] as const)('%j is %s', (stderr, code) => {
    expect(classifyGitFailure(stderr)).toBe(code);
  });

  it('puts a missing ref before refused credentials, and refused credentials before an unreachable remote', () => {
    expect(classifyGitFailure("fatal: unable to access 'https://h/': The requested URL returned error: 403")).toBe('auth-failed');
    expect(classifyGitFailure("fatal: couldn't find remote ref main\nfatal: Authentication failed")).toBe('ref-not-found');
  });

  it('is an Error named SourceError that carries its code and cause', () => {
    const cause = new Error('exit 128');
    const error = new SourceError('git-failed', 'git fetch failed', { cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.message, error.cause]).toEqual(['SourceError', 'git-failed', 'git fetch failed', cause]);
  });
});

describe('parseRevision', () => {
  const sha = 'a'.repeat(40);
  const line = `${sha}\0aaaaaaa\x002026-11-28T03:00:00+01:00\0Ann <ann@example.com>\0Fix: tiles\n`;

  it("reads git log's NUL-separated fields and the ref it came from", () => {
    expect(parseRevision(line, 'refs/heads/main')).toEqual({
      commit: sha,
      shortCommit: 'aaaaaaa',
      committedAt: '2026-11-28T03:00:00+01:00',
      author: 'Ann <ann@example.com>',
      subject: 'Fix: tiles',
      ref: 'refs/heads/main',
    });
  });

  it('keeps a subject ending in a line break when git adds its own; takes SHA-256 commits', () => {
    expect(parseRevision(`${sha}\0aaaa\0d\0a\0s\n\n`, 'r').subject).toBe('s\n');
    expect(parseRevision(`${'b'.repeat(64)}\0bbbb\0d\0a\0s`, 'r').commit).toBe('b'.repeat(64));
  });

  it('takes only the last line break as git\'s own', () => {
    expect(parseRevision(`${sha}\0aaaa\0d\0a\nb\0s\n`, 'r')).toMatchObject({ author: 'a\nb', subject: 's' });
  });

  it('refuses output with a field missing, an empty subject not', () => {
    expect(parseRevision(`${sha}\0aaaa\0d\0a\0`, 'r').subject).toBe('');
    for (const output of [sha, `${sha}\0aaaa`, `${sha}\0aaaa\0d`, `${sha}\0aaaa\0d\0a`]) expect(() => parseRevision(output, 'r'), JSON.stringify(output)).toThrow();
  });

  it('refuses output that is not a commit', () => {
    for (const output of ['', `${'A'.repeat(40)}\0aaaa\0d\0a\0s`, `x${sha}\0aaaa\0d\0a\0s`, `${sha}x\0aaaa\0d\0a\0s`, `${'a'.repeat(41)}\0aaaa\0d\0a\0s`, `${sha}\0aaa\0d\0a\0s`])
      expect(() => parseRevision(output, 'r'), JSON.stringify(output)).toThrow();
  });
});

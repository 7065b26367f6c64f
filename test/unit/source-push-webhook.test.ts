import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { followsRef } from '../../src/source/follow.js';
import { judgePushHook } from '../../src/source/push-webhook.js';

const secret = 's3cret';
const follows = (ref: string): boolean => followsRef({ branch: 'main' }, ref);

function signed(body: string, headers: Record<string, string> = {}): Parameters<typeof judgePushHook>[0] {
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return { body: Buffer.from(body), secret, follows, headers: { 'x-github-event': 'push', 'x-hub-signature-256': signature, ...headers } };
}

describe('judgePushHook', () => {
  it('accepts a GitHub push signed over the exact bytes, JSON or form-encoded', () => {
    expect(judgePushHook(signed('{"ref":"refs/heads/main"}'))).toEqual({ kind: 'push', host: 'github', ref: 'refs/heads/main' });
    const form = `payload=${encodeURIComponent('{"ref":"refs/heads/main"}')}`;
    expect(judgePushHook(signed(form, { 'content-type': 'application/x-www-form-urlencoded' }))).toMatchObject({ kind: 'push' });
  });

  it('refuses a body changed after signing, and a signature of another length', () => {
    const input = signed('{"ref":"refs/heads/main"}');
    expect(judgePushHook({ ...input, body: Buffer.from('{"ref":"refs/heads/main" }') }).kind).toBe('unauthorized');
    expect(judgePushHook({ ...input, headers: { ...input.headers, 'x-hub-signature-256': 'sha256=00' } }).kind).toBe('unauthorized');
  });

  it('ignores a ping and pushes elsewhere; a signed push without ref is a bad request', () => {
    expect(judgePushHook(signed('{"zen":"hi"}', { 'x-github-event': 'ping' }))).toMatchObject({ kind: 'ignored', reason: "event 'ping' is not a push" });
    expect(judgePushHook(signed('{"ref":"refs/heads/dev"}'))).toMatchObject({ kind: 'ignored' });
    expect(judgePushHook(signed('{}')).kind).toBe('bad-request');
  });

  it('takes a GitLab tag push with the right token, refuses an empty token', () => {
    const body = Buffer.from('{"ref":"refs/tags/release-3"}');
    const tags = (ref: string): boolean => followsRef({ tagPattern: 'release-*' }, ref);
    expect(judgePushHook({ body, secret, follows: tags, headers: { 'x-gitlab-event': 'Tag Push Hook', 'x-gitlab-token': secret } })).toEqual({ kind: 'push', host: 'gitlab', ref: 'refs/tags/release-3' });
    expect(judgePushHook({ body, secret, follows: tags, headers: { 'x-gitlab-event': 'Tag Push Hook', 'x-gitlab-token': '' } }).kind).toBe('unauthorized');
  });
});

describe('followsRef', () => {
  it('matches a tag glob within one path segment, and a branch exactly', () => {
    const release = { tagPattern: 'release-*' };
    expect(followsRef(release, 'refs/tags/release-12')).toBe(true);
    expect(followsRef(release, 'refs/tags/release-x/y')).toBe(false);
    expect(followsRef(release, 'refs/heads/release-1')).toBe(false);
    expect(followsRef({ tagPattern: 'v1.*' }, 'refs/tags/v1x2')).toBe(false);
    expect(followsRef({ branch: 'main' }, 'refs/heads/main-2')).toBe(false);
  });
});

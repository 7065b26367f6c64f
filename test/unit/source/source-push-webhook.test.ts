import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeliveryMemory } from '../../../src/source/delivery-memory.js';
import { followsRef } from '../../../src/source/follow.js';
import { judgePushHook } from '../../../src/source/push-webhook.js';

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

describe('judgePushHook: who is let through', () => {
  const push = '{"ref":"refs/heads/main"}';
  const gitlab = (token: string, event = 'Push Hook'): Parameters<typeof judgePushHook>[0] => ({
    body: Buffer.from(push),
    secret,
    follows,
    headers: { 'x-gitlab-event': event, 'x-gitlab-token': token },
  });

  it('refuses a GitHub signature made with another secret, naming the header', () => {
    const forged = `sha256=${createHmac('sha256', 'not-the-secret').update(push).digest('hex')}`;
    expect(judgePushHook({ ...signed(push), headers: { 'x-github-event': 'push', 'x-hub-signature-256': forged } })).toEqual({
      kind: 'unauthorized',
      message: 'X-Hub-Signature-256 does not match the body signed with DASHCD_WEBHOOK_SECRET',
    });
  });

  it('refuses a signature without its sha256= prefix and an empty one', () => {
    const hex = createHmac('sha256', secret).update(push).digest('hex');
    for (const signature of [hex, '', 'sha256=']) {
      expect(judgePushHook({ ...signed(push), headers: { 'x-github-event': 'push', 'x-hub-signature-256': signature } }).kind).toBe('unauthorized');
    }
  });

  it('takes the first of repeated headers', () => {
    const good = signed(push).headers['x-hub-signature-256'] as string;
    expect(judgePushHook({ ...signed(push), headers: { 'x-github-event': ['push'], 'x-hub-signature-256': [good, 'sha256=00'] } }).kind).toBe('push');
    expect(judgePushHook({ ...signed(push), headers: { 'x-github-event': 'push', 'x-hub-signature-256': ['sha256=00', good] } }).kind).toBe('unauthorized');
  });

  it('refuses a GitLab token that differs, is a prefix or extends the secret, naming the header', () => {
    for (const token of [`${secret}x`, secret.slice(0, -1), 'S3CRET']) {
      expect(judgePushHook(gitlab(token))).toEqual({ kind: 'unauthorized', message: 'X-Gitlab-Token is not DASHCD_WEBHOOK_SECRET' });
    }
    expect(judgePushHook(gitlab(secret))).toEqual({ kind: 'push', host: 'gitlab', ref: 'refs/heads/main' });
  });

  it('judges by the GitHub signature when both are sent: a right GitLab token does not excuse a wrong signature', () => {
    const input = gitlab(secret);
    expect(judgePushHook({ ...input, headers: { ...input.headers, 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=00' } }).kind).toBe('unauthorized');
  });

  it('refuses an unsigned request', () => {
    expect(judgePushHook({ body: Buffer.from(push), secret, follows, headers: { 'x-github-event': 'push' } })).toEqual({
      kind: 'unauthorized',
      message: 'unsigned webhook: send X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab)',
    });
  });

  it('lets nothing through while the secret is empty, though an empty token or an empty-key HMAC would match it', () => {
    const emptyKey = `sha256=${createHmac('sha256', '').update(push).digest('hex')}`;
    const message = 'no webhook secret is set: DASHCD_WEBHOOK_SECRET is empty';
    expect(judgePushHook({ ...gitlab(''), secret: '' })).toEqual({ kind: 'unauthorized', message });
    expect(judgePushHook({ body: Buffer.from(push), secret: '', follows, headers: { 'x-github-event': 'push', 'x-hub-signature-256': emptyKey } })).toEqual({ kind: 'unauthorized', message });
  });

  it("reads each host's own push events only", () => {
    expect(judgePushHook(gitlab(secret, 'Tag Push Hook')).kind).toBe('push');
    expect(judgePushHook(gitlab(secret, 'push'))).toEqual({ kind: 'ignored', host: 'gitlab', reason: "event 'push' is not a push" });
    expect(judgePushHook(signed(push, { 'x-github-event': 'Push Hook' }))).toEqual({ kind: 'ignored', host: 'github', reason: "event 'Push Hook' is not a push" });
    expect(judgePushHook({ ...gitlab(secret), headers: { 'x-gitlab-token': secret } })).toMatchObject({ kind: 'ignored', reason: "event '' is not a push" });
    expect(judgePushHook({ ...signed(push), headers: { 'x-hub-signature-256': signed(push).headers['x-hub-signature-256'] } })).toEqual({ kind: 'ignored', host: 'github', reason: "event '' is not a push" });
    expect(judgePushHook(signed('{"ref":"refs/heads/dev"}'))).toEqual({ kind: 'ignored', host: 'github', reason: 'push to refs/heads/dev, which is not followed' });
  });

  it('finds the ref in JSON only when it is a string of an object, and in a form body only as form-encoded', () => {
    const badRequest = { kind: 'bad-request', message: 'the push payload has no "ref" (send it as application/json)' };
    for (const body of ['{"ref":7}', 'null', '"refs/heads/main"', 'not json', '[]']) expect(judgePushHook(signed(body))).toEqual(badRequest);
    const form = `payload=${encodeURIComponent(push)}`;
    expect(judgePushHook(signed(form))).toEqual(badRequest);
    expect(judgePushHook(signed('other=1', { 'content-type': 'application/x-www-form-urlencoded' }))).toEqual(badRequest);
    expect(judgePushHook(signed(push, { 'content-type': 'application/json; charset=utf-8' })).kind).toBe('push');
    expect(judgePushHook(signed(form, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' })).kind).toBe('push');
    expect(judgePushHook(signed('payload=null', { 'content-type': 'application/x-www-form-urlencoded' }))).toEqual(badRequest);
  });
});

describe('judgePushHook: replays', () => {
  const push = '{"ref":"refs/heads/main","after":"abc"}';
  const digest = createHash('sha256').update(push).digest('hex');

  it('asks about the signed body and every delivery id the host sent, and calls a known delivery a replay', () => {
    const asked: string[][] = [];
    const input = { ...signed(push, { 'x-github-delivery': 'g-1', 'x-gitea-delivery': 'gt-1' }), firstTime: (keys: readonly string[]) => (asked.push([...keys]), false) };
    expect(judgePushHook(input)).toEqual({ kind: 'replay', host: 'github', ref: 'refs/heads/main' });
    expect(asked).toEqual([[`github body ${digest}`, 'github delivery g-1', 'github delivery gt-1']]);
  });

  it("keys GitLab deliveries by its own ids and skips empty ones", () => {
    const asked: string[][] = [];
    const headers = { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': secret, 'x-gitlab-event-uuid': 'e-1', 'idempotency-key': '' };
    const verdict = judgePushHook({ body: Buffer.from(push), secret, follows, headers, firstTime: (keys) => (asked.push([...keys]), true) });
    expect(verdict).toEqual({ kind: 'push', host: 'gitlab', ref: 'refs/heads/main' });
    expect(asked).toEqual([[`gitlab body ${digest}`, 'gitlab delivery e-1']]);
  });

  it('never remembers a delivery that was refused or ignored', () => {
    const memory = new DeliveryMemory();
    const firstTime = (keys: readonly string[]): boolean => memory.firstTime(keys);
    expect(judgePushHook({ ...signed(push), headers: { ...signed(push).headers, 'x-hub-signature-256': 'sha256=00' }, firstTime }).kind).toBe('unauthorized');
    expect(judgePushHook({ ...signed('{"ref":"refs/heads/dev"}'), firstTime }).kind).toBe('ignored');
    expect(judgePushHook({ ...signed(push), firstTime }).kind).toBe('push');
    expect(judgePushHook({ ...signed(push, { 'x-github-delivery': 'new-id' }), firstTime }).kind).toBe('replay');
    expect(judgePushHook({ ...signed('{"ref":"refs/heads/main","after":"def"}'), firstTime }).kind).toBe('push');
  });
});

describe('DeliveryMemory', () => {
  it('knows a key once seen, and any known key makes a delivery known without remembering its other keys', () => {
    const memory = new DeliveryMemory();
    expect(memory.firstTime(['a'])).toBe(true);
    expect(memory.firstTime(['a'])).toBe(false);
    expect(memory.firstTime(['b', 'a'])).toBe(false);
    expect(memory.firstTime(['b'])).toBe(true);
    expect(memory.firstTime(['c', 'd'])).toBe(true);
    expect(memory.firstTime(['d'])).toBe(false);
  });

  it('forgets a delivery once it is as old as the age limit', () => {
    let now = 1_000_000;
    const memory = new DeliveryMemory({ max: 10, ttlMs: 100 }, () => now);
    memory.firstTime(['old']);
    now += 50;
    memory.firstTime(['young']);
    now += 49;
    expect(memory.firstTime(['old'])).toBe(false);
    now += 1;
    expect(memory.firstTime(['young'])).toBe(false);
    expect(memory.firstTime(['old'])).toBe(true);
  });

  it('keeps at most `max` keys, forgetting the oldest first', () => {
    const memory = new DeliveryMemory({ max: 2, ttlMs: 1000 }, () => 0);
    for (const key of ['a', 'b', 'c']) memory.firstTime([key]);
    expect(memory.firstTime(['c'])).toBe(false);
    expect(memory.firstTime(['b'])).toBe(false);
    expect(memory.firstTime(['a'])).toBe(true);
    expect(memory.firstTime(['b'])).toBe(true);
  });

  it('defaults to a thousand deliveries over a day', async () => {
    const { DELIVERY_MEMORY_LIMITS } = await import('../../../src/source/delivery-memory.js');
    expect(DELIVERY_MEMORY_LIMITS).toEqual({ max: 1000, ttlMs: 86_400_000 });
    const memory = new DeliveryMemory();
    for (let i = 0; i < 1001; i++) memory.firstTime([`k${i}`]);
    expect(memory.firstTime(['k1'])).toBe(false);
    expect(memory.firstTime(['k0'])).toBe(true);
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

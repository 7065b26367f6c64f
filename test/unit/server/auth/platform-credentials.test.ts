import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlatformCredentials, createCredential, revokeCredential } from '../../../../src/server/auth/platform-credentials.js';

/** The same public id with another secret of the same alphabet and length: what a guesser who saw the id would send. */
function otherSecret(token: string): string {
  const last = token.at(-1) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -1)}${last}`;
}

describe('PlatformCredentials: platform tokens (verifyPlatformToken, verifiedNow)', () => {
  let dir: string;
  let file: string;
  /** The wall clock, and the monotonic one the reload interval is measured on: time passing moves both. */
  let now: number;
  let elapsed: number;
  let credentials: PlatformCredentials;
  const pass = (ms: number) => {
    now += ms;
    elapsed += ms;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-platform-credentials-'));
    file = join(dir, 'platform-tokens.json');
    now = 1_000_000;
    elapsed = 0;
    credentials = new PlatformCredentials(file, () => now, () => elapsed);
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const create = async (name: string) =>
    (await createCredential(file, { kind: 'platform-token', name, scopes: ['document:documents:read'], subject: `subject-${name}` })).secret;

  it('verifies a stored token again and again, and refuses one with its public id but another secret, before and after', async () => {
    const token = await create('reader');
    expect(await credentials.verifyPlatformToken(otherSecret(token))).toBeUndefined();
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('subject-reader');
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('subject-reader');
    expect(await credentials.verifyPlatformToken(otherSecret(token))).toBeUndefined();
    expect(await credentials.verifyPlatformToken(token.slice(0, -1))).toBeUndefined();
  });

  it('refuses a verified token once it is revoked and the file has been read again', async () => {
    const kept = await create('kept');
    const revoked = await create('revoked');
    expect((await credentials.verifyPlatformToken(revoked))?.subject).toBe('subject-revoked');
    expect((await credentials.verifyPlatformToken(kept))?.subject).toBe('subject-kept');
    expect(await revokeCredential(file, 'revoked')).toBe(true);
    pass(250);
    expect(await credentials.verifyPlatformToken(revoked)).toBeUndefined();
    expect((await credentials.verifyPlatformToken(kept))?.subject).toBe('subject-kept');
  });

  it('verifies an ephemeral token for the life of the process, and not another secret with its public id', async () => {
    const token = credentials.addEphemeral(['document:documents:write'], 'session');
    expect(await credentials.verifyPlatformToken(token)).toEqual({ subject: 'session', scopes: ['document:documents:write'] });
    pass(60_000);
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('session');
    expect(await credentials.verifyPlatformToken(otherSecret(token))).toBeUndefined();
  });

  it('knows only a token verified before, and only while the file is not due to be read again', async () => {
    const token = (await createCredential(file, { kind: 'platform-token', name: 'reader', scopes: ['document:documents:read'], subject: 'reader' })).secret;
    expect(credentials.verifiedNow(token)).toBeUndefined();
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('reader');
    expect(credentials.verifiedNow(token)).toEqual({ subject: 'reader', scopes: ['document:documents:read'] });
    expect(credentials.verifiedNow(otherSecret(token))).toBeUndefined();
    expect(credentials.verifiedNow('not a token')).toBeUndefined();
    pass(249);
    expect(credentials.verifiedNow(token)?.subject).toBe('reader');
    pass(1);
    // Due to be read again: a revocation may be waiting in the file, so only verifyPlatformToken may say yes.
    expect(credentials.verifiedNow(token)).toBeUndefined();
  });

  it('forgets a token once the records it was found in are replaced, so a revoked one is never known again', async () => {
    const token = (await createCredential(file, { kind: 'platform-token', name: 'revoked', scopes: ['document:documents:read'], subject: 'gone' })).secret;
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('gone');
    expect(await revokeCredential(file, 'revoked')).toBe(true);
    pass(250);
    expect(await credentials.verifyPlatformToken(token)).toBeUndefined();
    expect(credentials.verifiedNow(token)).toBeUndefined();
  });

  it('refuses a token removed from the file after the wall clock was set back an hour, once the interval has passed', async () => {
    const token = await create('revoked');
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('subject-revoked');
    now -= 3_600_000;
    expect(await revokeCredential(file, 'revoked')).toBe(true);
    pass(249);
    expect((await credentials.verifyPlatformToken(token))?.subject).toBe('subject-revoked');
    pass(1);
    expect(await credentials.verifyPlatformToken(token)).toBeUndefined();
    expect(credentials.verifiedNow(token)).toBeUndefined();
  });
});

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_SECONDS, MAX_ACCESS_TOKENS_PER_CLIENT, PlatformCredentials } from '../../src/server/auth/platform-credentials.js';
import { runTokenCli } from '../helpers/token-cli.js';

let cwd: string;
let file: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-platform-token-'));
  file = join(cwd, '.dashcd', 'env', 'local', 'platform-tokens.json');
});
afterEach(() => rm(cwd, { recursive: true, force: true }));

function dashcd(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTokenCli(cwd, argv);
}

describe('dashcd token create with platform scopes', () => {
  it('makes a platform token (dt0s16, the last line of stdout) that the Document service verifies, stored as a digest in a 0600 file', async () => {
    const created = await dashcd('token', 'create', '--scopes', 'document:documents:read,document:documents:write', '--name', 'docs', '--subject', 'alice');
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^dt0s16\.[A-Z2-7]{24}\.[A-Z2-7]{64}$/);
    expect(created.stderr).toMatch(/Created platform token [A-Z2-7]{24} "docs" \(document:documents:read, document:documents:write\) acting as alice/);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(token.split('.')[2]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await new PlatformCredentials(file).verifyPlatformToken(token)).toEqual({ subject: 'alice', scopes: ['document:documents:read', 'document:documents:write'] });
  });

  it('--oauth-client prints DT_CLIENT_ID and DT_CLIENT_SECRET, whose grant gives an access token; list shows it; revoke by client id ends it', async () => {
    const created = await dashcd('token', 'create', '--oauth-client', '--scopes', 'document:documents:read', '--name', 'ci');
    expect(created.code, created.stderr).toBe(0);
    const [idLine, secretLine] = created.stdout.trim().split('\n');
    const clientId = idLine?.replace('DT_CLIENT_ID=', '') ?? '';
    const secret = secretLine?.replace('DT_CLIENT_SECRET=', '') ?? '';
    expect(clientId).toMatch(/^dt0s02\.[A-Z2-7]{24}$/);
    expect(secret.startsWith(`${clientId}.`)).toBe(true);
    const credentials = new PlatformCredentials(file);
    expect(await credentials.grant(clientId, secret, undefined)).toMatchObject({ ok: true, scopes: ['document:documents:read'], expiresIn: 300 });

    const listed = await dashcd('token', 'list');
    expect(listed.stdout).toContain('Platform tokens and OAuth clients:');
    expect(listed.stdout).toMatch(new RegExp(`${clientId.replace('.', '\\.')}\\s+oauth-client\\s+ci\\s`));
    expect(listed.stdout).not.toContain(secret);

    const revoked = await dashcd('token', 'revoke', clientId);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await new PlatformCredentials(file).grant(clientId, secret, undefined)).toMatchObject({ ok: false, error: 'invalid_client' });
  });

  it('refuses mixing classic and platform scopes, and unknown platform scopes, with the valid ones named', async () => {
    const mixed = await dashcd('token', 'create', '--scopes', 'ReadConfig,document:documents:read');
    expect(mixed.code).toBe(64);
    expect(mixed.stderr).toMatch(/'ReadConfig' is not a platform scope.*document:documents:read/);
    const typo = await dashcd('token', 'create', '--scopes', 'document:document:read');
    expect(typo.code).toBe(64);
    expect(typo.stderr).toMatch(/did you mean document:documents:read/);
    const bad = await dashcd('token', 'create', '--scopes', 'document:documents:read', '--subject', 'no spaces allowed');
    expect(bad.code).toBe(64);
  });
});

describe('platform credentials', () => {
  it(`a client holds at most ${MAX_ACCESS_TOKENS_PER_CLIENT} live access tokens: a grant past it ends the oldest, and expired ones are dropped as time passes`, async () => {
    const created = await dashcd('token', 'create', '--oauth-client', '--scopes', 'document:documents:read', '--name', 'loop', '--subject', 'loop');
    const [clientId = '', secret = ''] = created.stdout.trim().split('\n').map((line) => line.split('=')[1] ?? '');
    let now = 1_000_000;
    const credentials = new PlatformCredentials(file, () => now);
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_ACCESS_TOKENS_PER_CLIENT; i++) {
      const grant = await credentials.grant(clientId, secret, undefined);
      if (!grant.ok) throw new Error(grant.description);
      tokens.push(grant.accessToken);
      now += 10;
    }
    expect(await credentials.verifyAccessToken(tokens[0] ?? '')).toBeUndefined();
    expect(await credentials.verifyAccessToken(tokens[1] ?? '')).toBeDefined();
    expect(await credentials.verifyAccessToken(tokens.at(-1) ?? '')).toBeDefined();
    now += ACCESS_TOKEN_SECONDS * 1000;
    const later = await credentials.grant(clientId, secret, undefined);
    expect(later.ok && (await credentials.verifyAccessToken(later.accessToken))).toEqual({ subject: 'loop', scopes: ['document:documents:read'] });
    expect(await credentials.verifyAccessToken(tokens.at(-1) ?? '')).toBeUndefined();
  });

  it('an access token works until it expires; a grant asks for at most the client\'s scopes; a secret with another client id is refused', async () => {
    const created = await dashcd('token', 'create', '--oauth-client', '--scopes', 'document:documents:read,document:documents:write', '--name', 'svc', '--subject', 'svc');
    const [clientId = '', secret = ''] = created.stdout.trim().split('\n').map((line) => line.split('=')[1] ?? '');
    let now = 1_000_000;
    const credentials = new PlatformCredentials(file, () => now);
    const grant = await credentials.grant(clientId, secret, ['document:documents:read']);
    if (!grant.ok) throw new Error(grant.description);
    expect(await credentials.verifyAccessToken(grant.accessToken)).toEqual({ subject: 'svc', scopes: ['document:documents:read'] });
    now += 299_999;
    expect(await credentials.verifyAccessToken(grant.accessToken)).toBeDefined();
    now += 1;
    expect(await credentials.verifyAccessToken(grant.accessToken)).toBeUndefined();
    expect(await credentials.grant(clientId, secret, ['document:documents:delete'])).toMatchObject({ ok: false, error: 'invalid_scope' });
    expect(await credentials.grant('dt0s02.AAAAAAAAAAAAAAAAAAAAAAAA', secret, undefined)).toMatchObject({ ok: false, error: 'invalid_client' });
    // The OAuth secret is no bearer token, nor a platform token the other way round.
    expect(await credentials.verifyPlatformToken(secret)).toBeUndefined();
  });

  it('revoking an OAuth client ends its access tokens at the next reload of the file, not when they expire', async () => {
    const created = await dashcd('token', 'create', '--oauth-client', '--scopes', 'document:documents:read', '--name', 'gone', '--subject', 'svc');
    const [clientId = '', secret = ''] = created.stdout.trim().split('\n').map((line) => line.split('=')[1] ?? '');
    let elapsed = 0;
    const credentials = new PlatformCredentials(file, Date.now, () => elapsed);
    const grant = await credentials.grant(clientId, secret, undefined);
    if (!grant.ok) throw new Error(grant.description);
    expect(await credentials.verifyAccessToken(grant.accessToken)).toBeDefined();
    expect((await dashcd('token', 'revoke', 'gone')).code).toBe(0);
    elapsed += 60_000;
    expect(await credentials.verifyAccessToken(grant.accessToken)).toBeUndefined();
    expect(await credentials.grant(clientId, secret, undefined)).toMatchObject({ ok: false, error: 'invalid_client' });
  });
});

import type { IncomingMessage } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SESSIONS_PER_TOKEN, createAccess, verdict, type Caller } from '../../../src/console/console-access.js';
import { consoleTokens } from '../../../src/console/console-tokens.js';
import { isLoopback, servesHost } from '../../../src/console/listener-host.js';
import { systemClock } from '../../../src/lib/clock.js';
import { openTokenStore, type TokenStore } from '../../../src/server/auth/token-store.js';

/** The parts of a request the access decisions read: headers and the port the connection came in on. */
function request(headers: Record<string, string>, localPort = 8080): IncomingMessage {
  return { headers, socket: { localPort } } as unknown as IncomingMessage;
}

describe('servesHost (DNS rebinding)', () => {
  it('accepts a loopback name or address with the listener port', () => {
    for (const host of ['localhost:8080', 'LOCALHOST:8080', '127.0.0.1:8080', '127.9.9.9:8080', '[::1]:8080']) expect(servesHost(request({ host })), host).toBe(true);
  });

  it('refuses another name, another port, or a garbled header', () => {
    for (const host of ['evil.example:8080', '127.0.0.1.evil.example:8080', 'localhost:8081', 'localhost', '10.0.0.1:8080', 'localhost:8080:1', '[::1]x:8080', '', 'localhost.:8080'])
      expect(servesHost(request({ host })), host).toBe(false);
  });

  it('takes a Host without a port as port 80, and passes a request without Host (no browser sends one)', () => {
    expect(servesHost(request({ host: 'localhost' }, 80))).toBe(true);
    expect(servesHost(request({ host: 'evil.example' }, 80))).toBe(false);
    expect(servesHost(request({}))).toBe(true);
  });

  it('treats only loopback addresses as loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1'].map(isLoopback)).toEqual([true, true, true, true, true, true]);
    expect(['0.0.0.0', '::', '10.0.0.5', '128.0.0.1', 'localhost.example', '::2'].map(isLoopback)).toEqual([false, false, false, false, false, false]);
  });
});

describe('verdict: per environment and scope, as the API decides', () => {
  const devReader: Caller = { kind: 'token', env: 'dev', scopes: ['ReadConfig'] };
  it('allows a token of that environment with that scope', () => {
    expect(verdict(devReader, 'dev', 'ReadConfig')).toBe('allowed');
    expect(verdict({ kind: 'token', env: 'dev', scopes: ['DataExport'] }, 'dev', 'DataExport')).toBe('allowed');
  });
  it('answers a token of another environment unauthorized (unknown there) and a missing scope forbidden', () => {
    expect(verdict(devReader, 'prod', 'ReadConfig')).toBe('unauthorized');
    expect(verdict(devReader, 'dev', 'DataExport')).toBe('forbidden');
    expect(verdict({ kind: 'token', env: 'dev', scopes: [] }, 'dev', 'ReadConfig')).toBe('forbidden');
  });
  it('lets anyone in only on an open (loopback) listener; nobody known is unauthorized', () => {
    expect(verdict({ kind: 'anyone' }, 'prod', 'DataExport')).toBe('allowed');
    for (const kind of ['anonymous', 'loopback-only', 'wrong-host'] as const) expect(verdict({ kind }, 'dev', 'ReadConfig')).toBe('unauthorized');
  });
});

describe('createAccess', () => {
  let dir: string;
  const stores = new Map<string, TokenStore>();
  let clock = 0;
  /** The monotonic time the stores measure their reload interval on: it only moves forward. */
  let elapsed = 0;
  const registry = {
    ids: () => [...stores.keys()],
    lookup: (env: string) => {
      const tokens = stores.get(env);
      return tokens && { tokens };
    },
  };
  const tokens = consoleTokens(registry);
  let devRead: { token: string; id: string };
  let devExport: string;
  let devWrite: string;
  let prodRead: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-console-access-'));
    for (const env of ['dev', 'prod']) stores.set(env, await openTokenStore({ file: join(dir, `${env}.json`), clock: { ...systemClock, now: () => clock }, elapsedMs: () => elapsed }));
    const dev = stores.get('dev')!;
    const created = await dev.create({ name: 'read', scopes: ['ReadConfig'] });
    devRead = { token: created.token, id: created.info.id };
    devExport = (await dev.create({ name: 'export', scopes: ['DataExport'] })).token;
    devWrite = (await dev.create({ name: 'write', scopes: ['WriteConfig'] })).token;
    prodRead = (await stores.get('prod')!.create({ name: 'read', scopes: ['ReadConfig'] })).token;
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('on loopback: anyone under a loopback Host, a rebound name is wrong-host; without a store elsewhere: loopback-only', () => {
    const open = createAccess({ host: '127.0.0.1', tokens });
    expect(open.caller(request({ host: 'localhost:8080' }))).toEqual({ kind: 'anyone' });
    expect(open.caller(request({ host: 'evil.example:8080' }))).toEqual({ kind: 'wrong-host' });
    expect(createAccess({ host: '0.0.0.0' }).caller(request({ host: 'localhost:8080' }))).toEqual({ kind: 'loopback-only' });
  });

  it('a header token is its own environment with its scopes; an unknown one is anonymous', () => {
    const access = createAccess({ host: '0.0.0.0', tokens });
    expect(access.caller(request({ authorization: `Api-Token ${devRead.token}` }))).toEqual({ kind: 'token', env: 'dev', scopes: ['ReadConfig'] });
    expect(access.caller(request({ authorization: `api-token\t${prodRead}  ` }))).toEqual({ kind: 'token', env: 'prod', scopes: ['ReadConfig'] });
    expect(access.caller(request({ authorization: `Bearer ${devRead.token}` }))).toEqual({ kind: 'anonymous' });
    expect(access.caller(request({ authorization: `Api-Token ${devRead.token.slice(0, -1)}x` }))).toEqual({ kind: 'anonymous' });
    expect(access.caller(request({}))).toEqual({ kind: 'anonymous' });
  });

  it('signs in only a stored token with a console scope; its session is that token (environment, scopes), nothing else', () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    expect(access.signIn('nope')).toBeUndefined();
    expect(access.signIn(devWrite)).toBeUndefined();
    expect(access.signIn(stores.get('dev')!.addEphemeral(['ReadConfig']))).toBeUndefined();
    const cookie = access.signIn(devExport) ?? '';
    expect(cookie).toMatch(/^dashcd_console=[\w-]{32}; HttpOnly; SameSite=Strict; Path=\/ui; Max-Age=43200$/);
    expect(cookie).not.toContain(devExport);
    const session = cookie.split(';')[0] ?? '';
    expect(access.caller(request({ cookie: `other=1; ${session}` }))).toEqual({ kind: 'token', env: 'dev', scopes: ['DataExport'] });
    expect(access.caller(request({ cookie: `${session}x` }))).toEqual({ kind: 'anonymous' });
    expect(createAccess({ host: '0.0.0.0', tokens }).caller(request({ cookie: session }))).toEqual({ kind: 'anonymous' });
  });

  it('keeps at most 16 live sessions per token: signing in again ends that token’s oldest, not another token’s', () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    expect(MAX_SESSIONS_PER_TOKEN).toBe(16);
    const other = (access.signIn(devExport) ?? '').split(';')[0] ?? '';
    const sessions = Array.from({ length: 20 }, () => (access.signIn(devRead.token) ?? '').split(';')[0] ?? '');
    const answered = sessions.map((session) => access.caller(request({ cookie: session })).kind);
    expect(answered).toEqual([...Array.from({ length: 4 }, () => 'anonymous'), ...Array.from({ length: 16 }, () => 'token')]);
    expect(access.caller(request({ cookie: other })).kind).toBe('token');
  });

  it('a session ends when it expires, when its token is revoked, and follows a scope change of its token', async () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    const start = clock;
    const session = (access.signIn(devRead.token) ?? '').split(';')[0] ?? '';
    const asked = (): Caller => access.caller(request({ cookie: session }));
    expect(asked()).toEqual({ kind: 'token', env: 'dev', scopes: ['ReadConfig'] });
    // Scopes as the store has them now (tokens.json edited by another process, noticed at its next reload).
    const file = join(dir, 'dev.json');
    const stored = JSON.parse(await readFile(file, 'utf8')) as { tokens: { id: string; scopes: string[] }[] };
    for (const t of stored.tokens) if (t.id === devRead.id) t.scopes = ['DataExport'];
    await writeFile(file, `${JSON.stringify(stored)}\n\n`);
    clock = start + 1000;
    elapsed += 1000;
    expect(asked()).toEqual({ kind: 'token', env: 'dev', scopes: ['DataExport'] });
    clock = start + 12 * 3_600_000 - 1;
    expect(asked()).toEqual({ kind: 'token', env: 'dev', scopes: ['DataExport'] });
    clock = start + 12 * 3_600_000;
    expect(asked()).toEqual({ kind: 'anonymous' });
    clock = start;
    const again = (access.signIn(devExport) ?? '').split(';')[0] ?? '';
    expect(access.caller(request({ cookie: again }))).toMatchObject({ kind: 'token' });
    const exportId = stores.get('dev')!.list().find((t) => t.name === 'export')!.id;
    expect(await stores.get('dev')!.revoke(exportId)).toBe(true);
    expect(access.caller(request({ cookie: again }))).toEqual({ kind: 'anonymous' });
    // Gone for good: the token coming back would not revive it (a new token has a new id anyway).
    expect(access.caller(request({ cookie: again }))).toEqual({ kind: 'anonymous' });
  });

  it('reads only the exact header shape: the scheme first, one token, blanks around it', () => {
    const access = createAccess({ host: '0.0.0.0', tokens });
    const asked = (authorization: string): Caller => access.caller(request({ authorization }));
    expect(asked(`Api-Token  \t${devRead.token}`)).toMatchObject({ kind: 'token', env: 'dev' });
    for (const header of [`xApi-Token ${devRead.token}`, `Api-Token ${devRead.token} x`, `Api-Token${devRead.token}`, `Api-Token ${devRead.token} ${prodRead}`])
      expect(asked(header), header).toEqual({ kind: 'anonymous' });
  });

  it('signs nobody in without a token store', () => {
    expect(createAccess({ host: '0.0.0.0' }).signIn(devRead.token)).toBeUndefined();
  });

  it('keeps each browser its own session: a later sign-in ends none that is live', () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    const first = (access.signIn(devRead.token) ?? '').split(';')[0] ?? '';
    clock += 1000;
    const second = (access.signIn(prodRead) ?? '').split(';')[0] ?? '';
    expect(first).not.toBe(second);
    expect(access.caller(request({ cookie: first }))).toEqual({ kind: 'token', env: 'dev', scopes: ['DataExport'] });
    expect(access.caller(request({ cookie: second }))).toEqual({ kind: 'token', env: 'prod', scopes: ['ReadConfig'] });
  });

  it('takes the whole cookie value as the session id: one with text after it is no session', () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    const session = (access.signIn(devRead.token) ?? '').split(';')[0] ?? '';
    expect(access.caller(request({ cookie: `${session}=` }))).toEqual({ kind: 'anonymous' });
    expect(access.caller(request({ cookie: `${session}=x` }))).toEqual({ kind: 'anonymous' });
    expect(access.caller(request({ cookie: 'dashcd_console=' }))).toEqual({ kind: 'anonymous' });
    expect(access.caller(request({ cookie: session }))).toMatchObject({ kind: 'token', env: 'dev' });
  });

  it('an expired session stays ended, whatever the clock says later', () => {
    const access = createAccess({ host: '0.0.0.0', tokens, now: () => clock });
    const start = clock;
    const session = (access.signIn(devRead.token) ?? '').split(';')[0] ?? '';
    clock = start + 12 * 3_600_000;
    expect(access.caller(request({ cookie: session }))).toEqual({ kind: 'anonymous' });
    clock = start;
    expect(access.caller(request({ cookie: session }))).toEqual({ kind: 'anonymous' });
  });
});

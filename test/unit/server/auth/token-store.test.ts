import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/lib/clock.js';
import { nodeFs, type FsLayer } from '../../../../src/lib/fs-layer.js';
import { generateToken, publicIdOf } from '../../../../src/server/auth/token-format.js';
import { TokenStoreError, openTokenStore } from '../../../../src/server/auth/token-store.js';

const TOKEN = /^dt0c01\.[A-Z2-7]{24}\.[A-Z2-7]{64}$/;

/**
 * A wall clock and the monotonic one beside it: time passing moves both, setting the wall clock back moves it alone.
 * `elapsedMs` is what the store measures its reload interval on.
 */
function fakeClock(start = Date.parse('2026-01-02T03:04:05.000Z')): Clock & { elapsedMs(): number; advance(ms: number): void; setBack(ms: number): void } {
  let now = start;
  let elapsed = 0;
  return {
    now: () => now,
    sleep: async () => undefined,
    elapsedMs: () => elapsed,
    advance: (ms) => {
      now += ms;
      elapsed += ms;
    },
    setBack: (ms) => (now -= ms),
  };
}

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashcd-tokens-'));
  file = join(dir, 'env', 'local', 'tokens.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('token format', () => {
  it('generates dt0c01.<24>.<64> tokens in the base32 alphabet, each one different', () => {
    const tokens = Array.from({ length: 200 }, () => generateToken());
    for (const { token, publicId } of tokens) {
      expect(token).toMatch(TOKEN);
      expect(publicIdOf(token)).toBe(publicId);
    }
    expect(new Set(tokens.map((t) => t.token)).size).toBe(200);
  });

  it('finds no public id in malformed tokens', () => {
    const { token } = generateToken();
    for (const bad of ['', 'dt0c01', token.slice(0, -1), `${token}A`, token.toLowerCase(), token.replace('dt0c01', 'dt0c02'), `x${token.slice(1)}`]) {
      expect(publicIdOf(bad)).toBeUndefined();
    }
    expect(publicIdOf(42)).toBeUndefined();
  });
});

describe('token store', () => {
  it('creates a token that verifies to its info, with scopes de-duplicated and createdAt from the clock', async () => {
    const store = await openTokenStore({ file, clock: fakeClock() });
    const { token, info } = await store.create({ name: 'ci', scopes: ['ReadConfig', 'WriteConfig', 'ReadConfig'] });
    expect(token).toMatch(TOKEN);
    expect(info).toEqual({ id: publicIdOf(token), name: 'ci', scopes: ['ReadConfig', 'WriteConfig'], createdAt: '2026-01-02T03:04:05.000Z' });
    expect(store.verify(token)).toEqual(info);
    expect(store.list()).toEqual([info]);
  });

  it('rejects a token with the right id but a wrong secret, and anything malformed, without throwing', async () => {
    const store = await openTokenStore({ file });
    const { token } = await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const wrongSecret = `${token.slice(0, -1)}${last}`;
    for (const bad of [wrongSecret, token.slice(0, -1), `${token}A`, '', 'garbage', 'dt0c01..', '\u0000'.repeat(96), 'é'.repeat(96), token.toLowerCase()]) {
      expect(store.verify(bad)).toBeUndefined();
    }
    expect(store.verify(token)).toBeDefined();
  });

  it('stores only a digest: the file never contains the token or its secret, and is mode 0600', async () => {
    const store = await openTokenStore({ file });
    const { token } = await store.create({ name: 'ci', scopes: ['DataExport'] });
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.split('.')[2]);
    expect(JSON.parse(text)).toMatchObject({ version: 1, tokens: [{ id: publicIdOf(token), name: 'ci', scopes: ['DataExport'] }] });
    expect(JSON.parse(text).tokens[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('writes through the fs layer durably: temp file at 0600, fsync, rename, fsync of the directory', async () => {
    const calls: string[] = [];
    const recording: FsLayer = {
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        const label = path.includes('.tmp-') ? 'temp' : path === join(dir, 'env', 'local') ? 'dir' : path;
        calls.push(`open ${label} ${flags}${mode === undefined ? '' : ` ${mode.toString(8)}`}`);
        return { write: (data) => handle.write(data), sync: async () => (calls.push(`sync ${label}`), handle.sync()), close: () => handle.close() };
      },
      rename: async (from, to) => (calls.push(`rename temp ${to === file ? 'tokens.json' : to}`), nodeFs.rename(from, to)),
      unlink: (path) => nodeFs.unlink(path),
      mkdir: (path) => nodeFs.mkdir(path),
      truncate: (path, length) => nodeFs.truncate(path, length),
    };
    const store = await openTokenStore({ file, fs: recording });
    await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    const write = calls.slice(calls.indexOf('open temp wx 600'));
    expect(write).toEqual(['open temp wx 600', 'sync temp', 'rename temp tokens.json', 'open dir r', 'sync dir']);
  });

  it('after a token verified, still rejects its wrong secrets and stops accepting it the moment it is revoked', async () => {
    const store = await openTokenStore({ file, clock: fakeClock() });
    const { token, info } = await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    expect(store.verify(token)).toEqual(info);
    const flip = (at: number): string => `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    for (const bad of [flip(token.length - 1), flip(40), flip(33), flip(3), token.toLowerCase()]) {
      expect(store.verify(bad)).toBeUndefined();
    }
    expect(store.verify(token)).toEqual(info);
    expect(await store.revoke(info.id)).toBe(true);
    expect(store.verify(token)).toBeUndefined();
  });

  it('revokes by id and by name, refuses an ambiguous name, and answers false for an unknown one', async () => {
    const store = await openTokenStore({ file });
    const a = await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    const b = await store.create({ name: 'ci', scopes: ['WriteConfig'] });
    const c = await store.create({ name: 'archiver', scopes: ['DataExport'] });
    await expect(store.revoke('ci')).rejects.toMatchObject({ code: 'AMBIGUOUS_TOKEN_NAME' });
    expect(await store.revoke(a.info.id)).toBe(true);
    expect(store.verify(a.token)).toBeUndefined();
    expect(await store.revoke('ci')).toBe(true);
    expect(store.verify(b.token)).toBeUndefined();
    expect(await store.revoke('nope')).toBe(false);
    expect(store.list().map((t) => t.id)).toEqual([c.info.id]);
    expect(store.verify(c.token)).toBeDefined();
  });

  it('refuses an empty name or no scopes with INVALID_TOKEN_INPUT and writes nothing', async () => {
    const store = await openTokenStore({ file });
    await expect(store.create({ name: '  ', scopes: ['ReadConfig'] })).rejects.toBeInstanceOf(TokenStoreError);
    await expect(store.create({ name: 'x', scopes: [] })).rejects.toMatchObject({ code: 'INVALID_TOKEN_INPUT' });
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps every token when creates run concurrently', async () => {
    const store = await openTokenStore({ file });
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create({ name: `t${i}`, scopes: ['ReadConfig'] })));
    const reopened = await openTokenStore({ file });
    for (const { token } of created) expect(reopened.verify(token)).toBeDefined();
    expect(reopened.list()).toHaveLength(20);
  });

  it('picks up another instance’s create and revoke once the reload interval has passed', async () => {
    const clock = fakeClock();
    const server = await openTokenStore({ file, clock, elapsedMs: clock.elapsedMs });
    const cli = await openTokenStore({ file });
    const { token, info } = await cli.create({ name: 'late', scopes: ['ReadConfig'] });
    clock.advance(100);
    expect(server.verify(token)).toBeUndefined();
    clock.advance(200);
    expect(server.verify(token)).toEqual(info);
    await cli.revoke(info.id);
    clock.advance(300);
    expect(server.verify(token)).toBeUndefined();
    expect(server.list()).toEqual([]);
  });

  it('refuses a token revoked by another instance after the wall clock was set back, once the interval has passed', async () => {
    const clock = fakeClock();
    const server = await openTokenStore({ file, clock, elapsedMs: clock.elapsedMs });
    const cli = await openTokenStore({ file });
    const { token, info } = await server.create({ name: 'ci', scopes: ['ReadConfig'] });
    expect(server.verify(token)).toEqual(info);
    clock.setBack(3_600_000);
    await cli.revoke(info.id);
    clock.advance(249);
    expect(server.verify(token)).toEqual(info);
    clock.advance(1);
    expect(server.verify(token)).toBeUndefined();
    expect(server.list()).toEqual([]);
  });

  it('never overwrites another instance’s token when it writes', async () => {
    const first = await openTokenStore({ file });
    const second = await openTokenStore({ file });
    const a = await first.create({ name: 'a', scopes: ['ReadConfig'] });
    const b = await second.create({ name: 'b', scopes: ['ReadConfig'] });
    const reopened = await openTokenStore({ file });
    expect(reopened.verify(a.token)).toBeDefined();
    expect(reopened.verify(b.token)).toBeDefined();
  });

  it('keeps the last good tokens when the file is damaged by hand, and refuses to open a damaged file', async () => {
    const clock = fakeClock();
    const store = await openTokenStore({ file, clock, elapsedMs: clock.elapsedMs });
    const { token } = await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    await writeFile(file, '{"version": 1, "tok');
    clock.advance(1000);
    expect(store.verify(token)).toBeDefined();
    await expect(openTokenStore({ file })).rejects.toMatchObject({ code: 'TOKEN_FILE_DAMAGED' });
  });

  it('keeps ephemeral tokens in memory only', async () => {
    const store = await openTokenStore({ file });
    const token = store.addEphemeral(['ReadConfig', 'WriteConfig'], 'embedded');
    expect(token).toMatch(TOKEN);
    expect(store.verify(token)).toMatchObject({ name: 'embedded', scopes: ['ReadConfig', 'WriteConfig'] });
    expect(store.list()).toEqual([]);
    await store.create({ name: 'ci', scopes: ['ReadConfig'] });
    expect(await readFile(file, 'utf8')).not.toContain(publicIdOf(token));
    expect(store.verify(token)).toBeDefined();
    expect((await openTokenStore({ file })).verify(token)).toBeUndefined();
  });
});

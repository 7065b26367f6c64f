import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IGNORE_EVERYTHING } from '../../src/lib/git-ignored-folder.js';
import { ownerAdmin } from '../../src/cli/owner-admin.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import { Scope } from '../../src/schema/scopes.js';
import { CreateTokenInput } from '../../src/server/auth/token-records.js';
import { TokenStoreError, openTokenStore, type TokenStore } from '../../src/server/auth/token-store.js';
import { acquireOwnership, dataDirLayout, listEnvironments, type Ownership } from '../../src/server/data-dir.js';
import { captureLog } from '../helpers/log-capture.js';
import { runTokenCli } from '../helpers/token-cli.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN_LINE = /^dt0c01\.[A-Z2-7]{24}\.[A-Z2-7]{64}$/;

let cwd: string;
let data: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dashcd-token-cli-'));
  data = join(cwd, '.dashcd');
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function dashcd(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTokenCli(cwd, argv);
}

async function createToken(...extra: string[]): Promise<string> {
  const { code, stdout, stderr } = await dashcd('token', 'create', '--scopes', 'ReadConfig,WriteConfig', ...extra);
  expect({ code, stderr }).toMatchObject({ code: 0 });
  return stdout.trimEnd().split('\n').at(-1) as string;
}

const localTokens = (): Promise<TokenStore> => openTokenStore({ file: dataDirLayout(data).tokensFile(EnvironmentId.parse('local')) });

describe('token commands on a data dir nobody owns', () => {
  it('create prints the token alone on the last stdout line and stores only its digest, at 0600', async () => {
    const { code, stdout, stderr } = await dashcd('token', 'create', '--scopes', 'ReadConfig,WriteConfig', '--name', 'ci');
    expect(code).toBe(0);
    const token = stdout.trimEnd();
    expect(token).toMatch(TOKEN_LINE);
    expect(stdout).toBe(`${token}\n`);
    expect(stderr).toContain(`Created token ${token.split('.')[1]} "ci"`);
    expect(stderr).not.toContain(token);
    const file = dataDirLayout(data).tokensFile(EnvironmentId.parse('local'));
    expect(await readFile(file, 'utf8')).not.toContain(token);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await localTokens()).verify(token)).toMatchObject({ name: 'ci', scopes: ['ReadConfig', 'WriteConfig'] });
    expect(await readdir(data)).not.toContain('owner.json');
  });

  it('create on a fresh data dir makes it with a .gitignore of *, as serve would', async () => {
    await createToken();
    expect(await readFile(join(data, '.gitignore'), 'utf8')).toBe(IGNORE_EVERYTHING);
  });

  it('list shows id, name, scopes and creation time, never the token', async () => {
    const token = await createToken('--name', 'ci');
    await dashcd('token', 'create', '--scopes', 'DataExport', '--scopes', 'InstallerDownload', '--name', 'archiver');
    const { code, stdout } = await dashcd('token', 'list');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCOPES\s+CREATED$/);
    expect(lines[1]).toMatch(new RegExp(`^${token.split('.')[1]}\\s+ci\\s+ReadConfig,WriteConfig\\s+\\d{4}-\\d\\d-\\d\\dT`));
    expect(lines[2]).toMatch(/^[A-Z2-7]{24}\s+archiver\s+DataExport,InstallerDownload\s+/);
    expect(stdout).not.toContain(token.split('.')[2]);
  });

  it('revoke by name makes the token invalid; an unknown name exits 1, an ambiguous one is a usage error', async () => {
    const token = await createToken('--name', 'ci');
    expect(await dashcd('token', 'revoke', 'nope')).toMatchObject({ code: 1, stderr: expect.stringContaining("no token with id or name 'nope'") });
    await createToken('--name', 'twin');
    await createToken('--name', 'twin');
    expect(await dashcd('token', 'revoke', 'twin')).toMatchObject({ code: 64, stderr: expect.stringContaining('revoke by id') });
    expect(await dashcd('token', 'revoke', 'ci')).toMatchObject({ code: 0 });
    expect((await localTokens()).verify(token)).toBeUndefined();
    expect((await localTokens()).list().map((t) => t.name)).toEqual(['twin', 'twin']);
  });

  it('refuses unknown or missing scopes, listing the valid ones', async () => {
    const unknown = await dashcd('token', 'create', '--scopes', 'ReadConfig,ReadConfg');
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain("unknown scope 'ReadConfg' — did you mean ReadConfig?");
    for (const scope of Scope.options) expect(unknown.stderr).toContain(scope);
    expect(unknown.stdout).toBe('');
    expect((await dashcd('token', 'create')).stderr).toContain('--scopes is required');
  });

  it('create --env makes the environment; list in an unknown environment is a usage error', async () => {
    await createToken('--env', 'staging');
    // Refused for its scopes, it made nothing to warn about.
    const refused = await dashcd('token', 'create', '--env', 'lcoal', '--scopes', 'Nope');
    expect(refused.code).toBe(64);
    expect(refused.stderr).not.toContain('note: environment');
    // One letter from one the data dir has: made, but said (lcoal was made in silence).
    const typo = await dashcd('token', 'create', '--env', 'lcoal', '--scopes', 'ReadConfig');
    expect(typo.code).toBe(0);
    expect(typo.stderr).toContain(`note: environment lcoal is new in ${data}, one letter from local, which it has: was --env local meant?\n`);
    expect((await dashcd('token', 'create', '--env', 'qa', '--scopes', 'ReadConfig')).stderr).not.toContain('note: environment');
    await rm(join(data, 'env', 'lcoal'), { recursive: true });
    await rm(join(data, 'env', 'qa'), { recursive: true });
    expect(await listEnvironments(data)).toEqual(['local', 'staging']);
    expect((await dashcd('token', 'list', '--env', 'staging')).stdout.split('\n')).toHaveLength(3);
    expect(await dashcd('token', 'list', '--env', 'prod')).toMatchObject({ code: 64, stderr: expect.stringContaining("environment 'prod' does not exist") });
    expect(await dashcd('token', 'list', '--env', 'stagin')).toMatchObject({ code: 64, stderr: `dashcd token list: environment 'stagin' does not exist in ${data} (known: local, staging) — did you mean staging?\n` });
    // Far from them all, it says how to make it.
    expect((await dashcd('token', 'list', '--env', 'prod')).stderr).toContain("(known: local, staging); 'dashcd token create --env prod' creates it");
    expect(await dashcd('token', 'list', '--env', '../x')).toMatchObject({ code: 64, stderr: expect.stringContaining('not a valid environment id') });
  });

  it('honours --data relative to the working directory', async () => {
    await createToken('--data', 'other');
    expect(await listEnvironments(join(cwd, 'other'))).toEqual(['local']);
    expect(await readdir(join(cwd, 'other', 'env', 'local'))).toEqual(['tokens.json']);
  });

  it('waits while an owner is starting (no URL yet), then goes through it once it serves', async () => {
    // `dashcd serve … & TOKEN=$(dashcd token create …)`, as docs/embedded-api.md has it, failed one run in two:
    // exit 4, "still starting".
    const ownership = await acquireOwnership(data);
    const admin = await startAdminServer(data, ownership.adminKey);
    try {
      const { lines, log } = captureLog('warn');
      const created = runTokenCli(cwd, ['token', 'create', '--scopes', 'ReadConfig'], log);
      const first = await Promise.race([created, waitFor(async () => (lines.length > 0 ? lines : undefined), { what: 'token create to wait' })]);
      expect(first).toEqual([expect.objectContaining({ msg: `data dir in use by dashcd pid ${process.pid} (still starting); waiting for it` })]);
      await ownership.publish(admin.url);
      const { code, stdout } = await created;
      expect(code).toBe(0);
      expect((await admin.store('local')).verify(stdout.trim())).toMatchObject({ scopes: ['ReadConfig'] });
      expect(admin.calls).toEqual(['POST /_dashcd/admin/env/local/tokens']);
    } finally {
      await new Promise((resolve) => admin.server.close(resolve));
      await ownership.release();
    }
  });

  it("waits for another command's own server to finish instead of going through it (it ends with that command)", async () => {
    const ownership = await acquireOwnership(data, { lasting: false });
    await ownership.publish('http://127.0.0.1:9');
    const { lines, log } = captureLog('warn');
    const created = runTokenCli(cwd, ['token', 'create', '--scopes', 'ReadConfig'], log);
    await waitFor(async () => (lines.length > 0 ? true : undefined), { what: 'token create to wait' });
    await ownership.release();
    const { code, stdout } = await created;
    expect(code).toBe(0);
    expect((await localTokens()).verify(stdout.trim())).toMatchObject({ scopes: ['ReadConfig'] });
  });
});

/** The admin endpoints as the owner serves them, over real token stores, counting the calls it answers. */
async function startAdminServer(root: string, adminKey: string): Promise<{ server: Server; url: string; calls: string[]; store(env: string): Promise<TokenStore> }> {
  const stores = new Map<string, Promise<TokenStore>>();
  const store = (env: string): Promise<TokenStore> => {
    if (!stores.has(env)) stores.set(env, openTokenStore({ file: dataDirLayout(root).tokensFile(EnvironmentId.parse(env)) }));
    return stores.get(env) as Promise<TokenStore>;
  };
  const calls: string[] = [];
  const server = createServer((req, res) => void answer(req, res).catch((error: unknown) => send(res, 500, envelope(500, String(error)))));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    calls.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${adminKey}`) return send(res, 401, envelope(401, 'Invalid admin key.'));
    const match = /^\/_dashcd\/admin\/env\/([^/]+)\/(tokens|session)(?:\/([^/]+))?$/.exec(req.url ?? '');
    const env = EnvironmentId.safeParse(match?.[1]);
    if (!match || !env.success) return send(res, 404, envelope(404, 'Not found'));
    const tokens = await store(env.data);
    if (match[2] === 'session' && req.method === 'POST') return send(res, 201, { token: tokens.addEphemeral([...Scope.options], 'session'), platformToken: 'platform-session' });
    if (req.method === 'GET' && !match[3]) return send(res, 200, { tokens: tokens.list() });
    if (req.method === 'POST' && !match[3]) {
      const input = CreateTokenInput.safeParse(JSON.parse(await readBody(req)));
      if (!input.success) return send(res, 400, envelope(400, 'Constraints violated.'));
      return send(res, 201, await tokens.create(input.data));
    }
    if (req.method === 'DELETE' && match[3]) {
      const idOrName = decodeURIComponent(match[3]);
      const revoked = await tokens.revoke(idOrName).catch((error: unknown) => error);
      if (revoked instanceof TokenStoreError) return send(res, 400, envelope(400, revoked.message));
      return revoked ? send(res, 204) : send(res, 404, envelope(404, `Token ${idOrName} not found`));
    }
    send(res, 405, envelope(405, 'Method not allowed'));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, store };
}

const envelope = (code: number, message: string): unknown => ({ error: { code, message } });
function send(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
}
async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

describe('token commands while a dashcd owns the data dir', () => {
  let ownership: Ownership;
  let admin: Awaited<ReturnType<typeof startAdminServer>>;
  beforeEach(async () => {
    ownership = await acquireOwnership(data);
    admin = await startAdminServer(data, ownership.adminKey);
    await ownership.publish(admin.url);
  });
  afterEach(async () => {
    await new Promise((resolve) => admin.server.close(resolve));
    await ownership.release();
  });

  it('create, list and revoke go through the owner, whose store sees each change at once', async () => {
    const token = await createToken('--name', 'ci', '--env', 'staging');
    const staging = await admin.store('staging');
    expect(staging.verify(token)).toMatchObject({ name: 'ci' });
    const listed = await dashcd('token', 'list', '--env', 'staging');
    expect(listed.stdout).toContain(`${token.split('.')[1]}  ci`);
    expect(await dashcd('token', 'revoke', 'ci', '--env', 'staging')).toMatchObject({ code: 0 });
    expect(staging.verify(token)).toBeUndefined();
    expect(admin.calls).toEqual([
      'POST /_dashcd/admin/env/staging/tokens',
      'GET /_dashcd/admin/env/staging/tokens',
      'DELETE /_dashcd/admin/env/staging/tokens/ci',
    ]);
    // A misspelt environment is named as such before the owner is asked (its 404 said only "not found").
    expect(await dashcd('token', 'list', '--env', 'stagin')).toMatchObject({ code: 64, stderr: expect.stringContaining("environment 'stagin' does not exist in") });
    expect(admin.calls).toHaveLength(3);
  });

  it('reports the owner’s refusals: unknown token, ambiguous name', async () => {
    expect(await dashcd('token', 'revoke', 'nope')).toMatchObject({ code: 1, stderr: expect.stringContaining("no token with id or name 'nope'") });
    await createToken('--name', 'twin');
    await createToken('--name', 'twin');
    expect(await dashcd('token', 'revoke', 'twin')).toMatchObject({ code: 64, stderr: expect.stringContaining('revoke by id') });
  });

  it('a miss through the owner names the environment whose token file holds the name', async () => {
    await createToken('--name', 'ci', '--env', 'staging');
    expect(await dashcd('token', 'revoke', 'ci')).toMatchObject({ code: 1, stderr: expect.stringContaining("in environment local; staging has one: revoke it with --env staging\n") });
    expect(admin.calls.at(-1)).toBe('DELETE /_dashcd/admin/env/local/tokens/ci');
  });

  it('the admin client encodes names, hands out session tokens, and explains a rejected key or a dead owner', async () => {
    const client = ownerAdmin({ url: `${admin.url}/`, adminKey: ownership.adminKey });
    const { info } = await client.createToken('local', { name: 'a/b c', scopes: ['ReadConfig'] });
    expect(await client.revokeToken('local', 'a/b c')).toBe(true);
    expect(await client.revokeToken('local', info.id)).toBe(false);
    const { token: session, platformToken } = await client.sessionCredentials('local');
    expect(platformToken).toBe('platform-session');
    expect((await admin.store('local')).verify(session)?.scopes).toEqual([...Scope.options]);

    await expect(ownerAdmin({ url: admin.url, adminKey: 'wrong' }).listTokens('local')).rejects.toMatchObject({
      exitCode: 4,
      message: expect.stringContaining('rejected the admin key'),
    });
    await expect(client.createToken('local', { name: '', scopes: ['ReadConfig'] })).rejects.toMatchObject({ exitCode: 64, message: 'Constraints violated.' });
    await new Promise((resolve) => admin.server.close(resolve));
    await expect(client.listTokens('local')).rejects.toMatchObject({ exitCode: 4, message: expect.stringContaining('is it still running?') });
  });
});

describe('token create in a project whose dashcd.yaml declares environments', () => {
  it('notes that a token of another environment (local, the default) is not one of theirs, and is quiet for theirs', async () => {
    const quiet = await dashcd('token', 'create', '--scopes', 'ReadConfig');
    expect(quiet.stderr).not.toContain('note:');
    await mkdir(join(cwd, 'dashboards'));
    await writeFile(join(cwd, 'dashcd.yaml'), 'environments:\n  dev:\n  prod:\n  saas:\n    target: https://abc123.live.dynatrace.com\n    tokenEnv: SAAS_TOKEN\n');
    const local = await dashcd('token', 'create', '--scopes', 'ReadConfig');
    expect(local.code).toBe(0);
    expect(local.stderr).toContain('note: this token is for environment local (/e/local) only; dashcd.yaml here declares dev, prod: make one for them with --env NAME');
    expect(local.stdout.trimEnd().split('\n').at(-1)).toMatch(TOKEN_LINE);
    const dev = await dashcd('token', 'create', '--env', 'dev', '--scopes', 'ReadConfig');
    expect(dev.code).toBe(0);
    expect(dev.stderr).not.toContain('note:');
  });

  it('refuses a name one typo from a declared environment, creating nothing; a name far from them all is served, with the note', async () => {
    await mkdir(join(cwd, 'dashboards'));
    await writeFile(join(cwd, 'dashcd.yaml'), 'environments:\n  dev:\n  prod:\n');
    const typo = await dashcd('token', 'create', '--env', 'prdo', '--scopes', 'ReadConfig');
    expect(typo).toMatchObject({ code: 64, stdout: '' });
    expect(typo.stderr).toContain('unknown environment prdo — did you mean prod? (dashcd.yaml here declares dev, prod)');
    // list and revoke say the same of it: they offered "'dashcd token create --env prdo' creates it", which create refuses.
    for (const command of [['list'], ['revoke', 'ci']]) {
      expect(await dashcd('token', ...command, '--env', 'prdo')).toMatchObject({ code: 64, stderr: `dashcd token ${command[0]}: unknown environment prdo — did you mean prod? (dashcd.yaml here declares dev, prod)\n` });
    }
    expect((await dashcd('token', 'list', '--env', 'prod')).stderr).toContain("environment 'prod' does not exist in");
    expect((await dashcd('token', 'list', '--env', 'prod')).stderr).toContain("'dashcd token create --env prod' creates it");
    // Two edits from dev is another name, not a typo.
    expect((await dashcd('token', 'create', '--env', 'qa', '--scopes', 'ReadConfig')).code).toBe(0);
    const other = await dashcd('token', 'create', '--env', 'loadtest', '--scopes', 'ReadConfig');
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('note: this token is for environment loadtest (/e/loadtest) only; dashcd.yaml here declares dev, prod');
    // Once the data dir has it, it is no typo: a second token for it is made without a word against it.
    expect((await dashcd('token', 'create', '--env', 'loadtest', '--scopes', 'ReadConfig')).code).toBe(0);
  });

  it('says nothing of a declared environment one letter from one the data dir has (eu2 beside eu1 is meant)', async () => {
    await mkdir(join(cwd, 'dashboards'));
    await writeFile(join(cwd, 'dashcd.yaml'), 'environments:\n  eu1:\n  eu2:\n');
    expect((await dashcd('token', 'create', '--env', 'eu1', '--scopes', 'ReadConfig')).code).toBe(0);
    const second = await dashcd('token', 'create', '--env', 'eu2', '--scopes', 'ReadConfig');
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('was --env');
    // Undeclared and near one the data dir has, it is said (eu3, near the declared ones, is refused as a typo).
    expect((await dashcd('token', 'create', '--env', 'locl', '--scopes', 'ReadConfig')).stderr).toContain('one letter from local, which it has: was --env local meant?');
  });
});

describe('token list and revoke in a project whose dashcd.yaml declares environments', () => {
  beforeEach(async () => {
    await mkdir(join(cwd, 'dashboards'));
    await writeFile(join(cwd, 'dashcd.yaml'), 'environments:\n  dev:\n  prod:\n  saas:\n    target: https://abc123.live.dynatrace.com\n    tokenEnv: SAAS_TOKEN\n');
  });

  it('list without --env notes that it showed local only, naming the project’s environments; --env dev is quiet', async () => {
    await createToken('--env', 'dev', '--name', 'ci');
    const local = await dashcd('token', 'list');
    expect(local.code).toBe(0);
    expect(local.stderr).toBe(
      "No tokens in environment local; create one with 'dashcd token create'.\n" +
        'note: these are the tokens of environment local (/e/local) only; dashcd.yaml here declares dev, prod: list theirs with --env NAME\n',
    );
    const dev = await dashcd('token', 'list', '--env', 'dev');
    expect(dev).toMatchObject({ code: 0, stderr: '' });
    expect(dev.stdout).toMatch(/\sci\s+ReadConfig,WriteConfig\s/);
  });

  it('revoke without --env of a token only dev holds exits 1 naming dev; revoke --env dev revokes it', async () => {
    const token = await createToken('--env', 'dev', '--name', 'ci');
    const missed = await dashcd('token', 'revoke', 'ci');
    expect(missed).toMatchObject({ code: 1, stdout: '' });
    expect(missed.stderr).toBe("dashcd token revoke: no token with id or name 'ci' in environment local; dev has one: revoke it with --env dev\n");
    // By id too, and nothing was revoked by the miss.
    expect((await dashcd('token', 'revoke', token.split('.')[1] ?? '')).stderr).toContain('dev has one: revoke it with --env dev');
    expect(await dashcd('token', 'revoke', 'ci', '--env', 'dev')).toMatchObject({ code: 0, stderr: "Revoked token 'ci' in environment dev.\n" });
  });

  it('revoke names every environment holding the name, else asks for --env listing the project’s environments', async () => {
    await createToken('--env', 'dev', '--name', 'ci');
    await createToken('--env', 'prod', '--name', 'ci');
    expect(await dashcd('token', 'revoke', 'ci')).toMatchObject({ code: 1, stderr: expect.stringContaining("in environment local; dev, prod have one: revoke it with --env NAME\n") });
    const nowhere = await dashcd('token', 'revoke', 'nope');
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toBe(
      "dashcd token revoke: no token with id or name 'nope' in environment local; dashcd.yaml here declares dev, prod: choose one with --env NAME (see 'dashcd token list --env NAME')\n",
    );
  });

  it('revoke of a local token succeeds and notes that it was local’s', async () => {
    await createToken('--name', 'old');
    const revoked = await dashcd('token', 'revoke', 'old');
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toBe(
      "Revoked token 'old' in environment local.\n" +
        'note: that token was one of environment local (/e/local); dashcd.yaml here declares dev, prod: revoke theirs with --env NAME\n',
    );
  });
});

describe('token revoke of a name the environment lacks, outside a project', () => {
  it('names the data dir’s environments that hold it, else where to look', async () => {
    await createToken('--env', 'staging', '--name', 'archiver');
    expect(await dashcd('token', 'revoke', 'archiver')).toMatchObject({ code: 1, stderr: expect.stringContaining("in environment local; staging has one: revoke it with --env staging\n") });
    expect(await dashcd('token', 'revoke', 'nope')).toMatchObject({ code: 1, stderr: expect.stringContaining("'nope' in environment local (see 'dashcd token list --env local')\n") });
  });
});

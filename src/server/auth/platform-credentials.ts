import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { mkdirDurable, writeFileDurable } from '../../lib/durable-file.js';
import { ReloadSchedule, monotonicMs, type ElapsedMs } from '../../lib/reload-schedule.js';
import { PlatformScope } from '../../schema/scopes.js';
import { TokenName } from './token-records.js';
import { digestToken, generateToken, publicIdWithPrefix, sameSecret } from './token-format.js';

/**
 * The platform's credentials of one environment: platform tokens (`dt0s16.<public id>.<secret>`, sent as
 * `Authorization: Bearer`) and OAuth clients (id `dt0s02.<public id>`, secret `dt0s02.<public id>.<secret>`), which
 * trade their secret for a short-lived access token at the token endpoint. Each has a subject (the owner of what it
 * creates) and platform scopes. As with API tokens only SHA-256 digests are stored; the file (`platform-tokens.json`,
 * mode 0600) is written by the CLI alone, and a running server reads it again when it changes.
 */

export const PLATFORM_TOKEN_PREFIX = 'dt0s16';
export const OAUTH_CLIENT_PREFIX = 'dt0s02';
/** The lifetime of an OAuth access token, as Dynatrace SSO grants it. */
export const ACCESS_TOKEN_SECONDS = 300;
/** Live OAuth access tokens one client may hold at once (a CI job takes one per run; tokens live five minutes). */
export const MAX_ACCESS_TOKENS_PER_CLIENT = 1000;

export const CredentialKind = z.enum(['platform-token', 'oauth-client']);
export type CredentialKind = z.infer<typeof CredentialKind>;

export const CredentialInfo = z.object({
  kind: CredentialKind,
  id: z.string(),
  name: z.string(),
  scopes: z.array(PlatformScope),
  subject: z.string(),
  createdAt: z.string(),
});
export type CredentialInfo = z.infer<typeof CredentialInfo>;

const StoredCredential = CredentialInfo.extend({ sha256: z.string().regex(/^[0-9a-f]{64}$/) });
type StoredCredential = z.infer<typeof StoredCredential>;
const CredentialFile = z.object({ version: z.literal(1), credentials: z.array(StoredCredential) });

export const CreateCredentialInput = z.object({
  kind: CredentialKind,
  name: TokenName,
  scopes: z.array(PlatformScope).min(1, 'A platform credential needs at least one scope.'),
  subject: z.string().regex(/^[A-Za-z0-9._@-]{1,128}$/, 'A subject is 1 to 128 letters, digits, dots, dashes, underscores or @.').optional(),
});
export type CreateCredentialInput = z.input<typeof CreateCredentialInput>;

/** Who a verified credential speaks for. */
export interface Principal {
  readonly subject: string;
  readonly scopes: readonly PlatformScope[];
}

const RELOAD_INTERVAL_MS = 250;

/**
 * Reads the file again when it changed (at most every 250 ms of monotonic time, so setting the wall clock back cannot
 * hold a revocation off), verifies tokens and client secrets, issues access tokens.
 */
export class PlatformCredentials {
  private records: StoredCredential[] = [];
  private signature = '';
  private readonly reloads: ReloadSchedule;
  /** By digest: what each access token may do, until when, and the client it was granted to. */
  private readonly accessTokens = new Map<string, Principal & { readonly expiresAt: number; readonly clientId: string }>();
  /**
   * Each client's live access tokens, oldest first: a client may hold MAX_ACCESS_TOKENS_PER_CLIENT at once, so one
   * granting in a loop cannot fill memory for the five minutes they live.
   */
  private readonly issuedByClient = new Map<string, string[]>();
  /** Platform tokens held in memory only (digest → principal), for the embedded server's own sessions. */
  private readonly ephemeral = new Map<string, Principal>();
  /**
   * Platform tokens that passed the digest check, by public id, so the next request with one skips two SHA-256s (a
   * tenth of a document GET's CPU). A stored token's entry holds while the records it was found in are current (a
   * reload or revocation replaces them); an ephemeral token lives as long as the process.
   */
  private readonly verified = new Map<string, { readonly token: string; readonly principal: Principal; readonly records?: readonly StoredCredential[] }>();

  /** `now` is the wall clock (access tokens' expiry); `elapsedMs` the monotonic one the reload interval is measured on. */
  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    elapsedMs: ElapsedMs = monotonicMs,
  ) {
    this.reloads = new ReloadSchedule(RELOAD_INTERVAL_MS, elapsedMs);
  }

  /** A platform token's principal; undefined for anything unknown. */
  async verifyPlatformToken(token: string): Promise<Principal | undefined> {
    const id = publicIdWithPrefix(token, PLATFORM_TOKEN_PREFIX);
    if (id === undefined) return undefined;
    if (this.reloads.due()) await this.refresh(false);
    const remembered = this.rememberedPrincipal(id, token);
    if (remembered) return remembered;
    const ephemeral = this.ephemeral.get(digestToken(token).toString('hex'));
    if (ephemeral) {
      this.verified.set(id, { token, principal: ephemeral });
      return ephemeral;
    }
    return this.verifySecret('platform-token', PLATFORM_TOKEN_PREFIX, token);
  }

  /**
   * The principal of a platform token verified before, when that can be told without waiting: undefined when the
   * token was not verified before, or when the file is due to be read again (verifyPlatformToken then decides).
   */
  verifiedNow(token: string): Principal | undefined {
    const id = publicIdWithPrefix(token, PLATFORM_TOKEN_PREFIX);
    if (id === undefined || this.reloads.due()) return undefined;
    return this.rememberedPrincipal(id, token);
  }

  private rememberedPrincipal(id: string, token: string): Principal | undefined {
    const known = this.verified.get(id);
    if (known && known.records !== undefined && known.records !== this.records) {
      // Found in records since replaced: forgotten, so a revoked secret and the old records are not kept alive.
      this.verified.delete(id);
      return undefined;
    }
    return known && sameSecret(known.token, token) ? known.principal : undefined;
  }

  /**
   * A platform token valid until this process stops, never written to the file (as `TokenStore.addEphemeral`): what
   * the embedded server hands its own commands. The caller chooses the subject, so a later run's token owns what an
   * earlier one created.
   */
  addEphemeral(scopes: readonly PlatformScope[], subject: string): string {
    const { token } = generateToken(PLATFORM_TOKEN_PREFIX);
    this.ephemeral.set(digestToken(token).toString('hex'), { subject, scopes: [...new Set(scopes)] });
    return token;
  }

  /**
   * A live access token's principal (issued by `grant`); undefined for anything unknown or expired, and once its
   * client is revoked: a revocation ends the client's access tokens from the next request on, as it does a platform
   * token, not when they expire.
   */
  async verifyAccessToken(token: string): Promise<Principal | undefined> {
    const digest = digestToken(token).toString('hex');
    const found = this.accessTokens.get(digest);
    if (!found || found.expiresAt <= this.now()) return undefined;
    await this.refresh(false);
    if (this.records.some((record) => record.kind === 'oauth-client' && record.id === found.clientId)) return { subject: found.subject, scopes: found.scopes };
    this.dropAccessToken(digest, found.clientId);
    return undefined;
  }

  /**
   * The client-credentials grant: the client's secret checked, the scopes asked for (all of the client's when none)
   * within the client's. `invalid_client` / `invalid_scope` as RFC 6749 §5.2 names them.
   */
  async grant(clientId: string, secret: string, scopes: readonly string[] | undefined): Promise<
    | { ok: true; accessToken: string; scopes: readonly PlatformScope[]; expiresIn: number }
    | { ok: false; error: 'invalid_client' | 'invalid_scope'; description: string }
  > {
    const client = await this.verifySecret('oauth-client', OAUTH_CLIENT_PREFIX, secret);
    // The id is the secret's first two parts: a secret presented with another client's id is refused.
    if (!client || clientId !== `${OAUTH_CLIENT_PREFIX}.${publicIdWithPrefix(secret, OAUTH_CLIENT_PREFIX) ?? ''}`) {
      return { ok: false, error: 'invalid_client', description: 'Unknown client id or wrong client secret.' };
    }
    const granted = scopes ?? client.scopes;
    const foreign = granted.filter((scope) => !client.scopes.includes(scope as PlatformScope));
    if (foreign.length > 0) return { ok: false, error: 'invalid_scope', description: `The client may not ask for: ${foreign.join(' ')}.` };
    const accessToken = randomBytes(32).toString('base64url');
    const now = this.now();
    const grantedTo = publicIdWithPrefix(secret, OAUTH_CLIENT_PREFIX) ?? '';
    const digest = digestToken(accessToken).toString('hex');
    this.dropExpiredAccessTokens(now);
    const issued = this.issuedByClient.get(grantedTo) ?? [];
    // Past the limit the client's oldest token ends (its list is in issue order).
    if (issued.length >= MAX_ACCESS_TOKENS_PER_CLIENT) this.accessTokens.delete(issued.shift() ?? '');
    issued.push(digest);
    this.issuedByClient.set(grantedTo, issued);
    this.accessTokens.set(digest, { subject: client.subject, scopes: granted as PlatformScope[], expiresAt: now + ACCESS_TOKEN_SECONDS * 1000, clientId: grantedTo });
    return { ok: true, accessToken, scopes: granted as PlatformScope[], expiresIn: ACCESS_TOKEN_SECONDS };
  }

  /**
   * Every token lives ACCESS_TOKEN_SECONDS, so the map's insertion order is its expiry order (and each client's list
   * too): the expired ones are the first, and the sweep stops at the first live one. Scanning the whole map at each
   * grant made 50,000 grants in five minutes cost three times as much at the end as at the start.
   */
  private dropExpiredAccessTokens(now: number): void {
    for (const [digest, { expiresAt, clientId }] of this.accessTokens) {
      if (expiresAt > now) return;
      this.dropAccessToken(digest, clientId);
    }
  }

  /** Ends one access token, in the map and in its client's list (a revoked client's tokens go as they are asked for). */
  private dropAccessToken(digest: string, clientId: string): void {
    this.accessTokens.delete(digest);
    const issued = this.issuedByClient.get(clientId);
    const at = issued?.indexOf(digest) ?? -1;
    if (at !== -1) issued?.splice(at, 1);
    if (issued?.length === 0) this.issuedByClient.delete(clientId);
  }

  private async verifySecret(kind: CredentialKind, prefix: string, secret: string): Promise<Principal | undefined> {
    const id = publicIdWithPrefix(secret, prefix);
    if (id === undefined) return undefined;
    const find = () => this.records.find((candidate) => candidate.id === id && candidate.kind === kind);
    await this.refresh(false);
    // A credential created a moment ago (the command just printed it) is looked for in the file at once.
    const record = find() ?? (await this.refresh(true), find());
    if (!record || !timingSafeEqual(digestToken(secret), Buffer.from(record.sha256, 'hex'))) return undefined;
    const principal = { subject: record.subject, scopes: record.scopes };
    // Remembered against the very records it was found in, in the same turn: a reload after this cannot be missed.
    if (kind === 'platform-token') this.verified.set(id, { token: secret, principal, records: this.records });
    return principal;
  }

  private async refresh(force: boolean): Promise<void> {
    if (!force && !this.reloads.due()) return;
    this.reloads.checked();
    const signature = await fileSignature(this.file);
    if (signature === this.signature) return;
    try {
      this.records = await readCredentials(this.file);
      this.signature = signature;
    } catch {
      // A hand edit that broke the file keeps the last good set; the next change is read again.
    }
  }
}

/** Every credential of the file, without digests. */
export async function listCredentials(file: string): Promise<CredentialInfo[]> {
  return (await readCredentials(file)).map(({ sha256: _digest, ...info }) => info);
}

/** Creates a credential; the secret is returned once and never stored. */
export async function createCredential(file: string, input: CreateCredentialInput, now = new Date()): Promise<{ secret: string; clientId?: string; info: CredentialInfo }> {
  const { kind, name, scopes, subject = randomUUID() } = CreateCredentialInput.parse(input);
  const prefix = kind === 'platform-token' ? PLATFORM_TOKEN_PREFIX : OAUTH_CLIENT_PREFIX;
  return mutate(file, (records) => {
    let fresh = generateToken(prefix);
    while (records.some((record) => record.id === fresh.publicId)) fresh = generateToken(prefix);
    const info: CredentialInfo = { kind, id: fresh.publicId, name, scopes: [...new Set(scopes)], subject, createdAt: now.toISOString() };
    const result = { secret: fresh.token, info, ...(kind === 'oauth-client' ? { clientId: `${prefix}.${fresh.publicId}` } : {}) };
    return { records: [...records, { ...info, sha256: digestToken(fresh.token).toString('hex') }], result };
  });
}

/** Removes by public id (or client id), else by name; false when nothing matches; an ambiguous name throws. */
export async function revokeCredential(file: string, idOrName: string): Promise<boolean> {
  const id = idOrName.startsWith(`${OAUTH_CLIENT_PREFIX}.`) ? idOrName.slice(OAUTH_CLIENT_PREFIX.length + 1) : idOrName;
  return mutate(file, (records) => {
    const byId = records.filter((record) => record.id === id);
    const matches = byId.length > 0 ? byId : records.filter((record) => record.name === idOrName);
    if (matches.length > 1) throw new Error(`name '${idOrName}' matches ${matches.length} platform credentials — revoke by id`);
    if (matches.length === 0) return { records, result: false };
    return { records: records.filter((record) => record !== matches[0]), result: true };
  });
}

async function readCredentials(file: string): Promise<StoredCredential[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = CredentialFile.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`platform credential file ${file} has an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data.credentials;
}

const LOCK_ATTEMPTS = 100;
const LOCK_WAIT_MS = 20;

/**
 * One read-modify-write of the file at a time across processes (an exclusive lock file beside it); the new file is
 * written durably. The server never writes it, so commands may change it while a server runs.
 */
async function mutate<T>(file: string, change: (records: StoredCredential[]) => { records: StoredCredential[]; result: T }): Promise<T> {
  await mkdirDurable(dirname(file));
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= LOCK_ATTEMPTS) {
        throw new Error(`cannot lock ${file}: ${lock} exists — another token command is running, or one was killed (then remove the lock file)`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
    }
  }
  try {
    const current = await readCredentials(file);
    const { records, result } = change(current);
    if (records !== current) {
      await writeFileDurable(file, `${JSON.stringify({ version: 1, credentials: records }, null, 2)}\n`, { mode: 0o600 });
    }
    return result;
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}

async function fileSignature(file: string): Promise<string> {
  const info = await stat(file).catch(() => undefined);
  return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'missing';
}

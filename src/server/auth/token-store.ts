import { timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import { mkdirDurable, writeFileDurable } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import { ReloadSchedule, monotonicMs, type ElapsedMs } from '../../lib/reload-schedule.js';
import type { Scope } from '../../schema/scopes.js';
import { TOKEN_LENGTH, TOKEN_PREFIX, PUBLIC_ID_LENGTH, digestToken, generateToken, publicIdOf, sameSecret } from './token-format.js';
import {
  CreateTokenInput,
  TokenStoreError,
  readTokenFile,
  serializeTokenFile,
  type StoredToken,
  type TokenInfo,
} from './token-records.js';

export { TokenStoreError, type TokenInfo };

export interface TokenStore {
  /** Stores a new token's digest and returns the token: the only moment it exists outside the caller's hands. */
  create(input: { name: string; scopes: Scope[] }): Promise<{ token: string; info: TokenInfo }>;
  /** The token's info when it is known and matches; `undefined` for anything else, never a throw. */
  verify(token: string): TokenInfo | undefined;
  /** Stored tokens in creation order (ephemeral ones are not listed). */
  list(): TokenInfo[];
  /** Removes by public id, else by name; `false` when nothing matches; an ambiguous name is AMBIGUOUS_TOKEN_NAME. */
  revoke(idOrName: string): Promise<boolean>;
  /** A token that lives in memory only, for an in-process embedded server; never written to the file. */
  addEphemeral(scopes: Scope[], name?: string): string;
}

export interface OpenTokenStoreOptions {
  file: string;
  fs?: FsLayer;
  /** The wall clock: tokens' createdAt. */
  clock?: Clock;
  /** The monotonic clock the reload interval is measured on, never the wall clock (which may be set back). */
  elapsedMs?: ElapsedMs;
}

/**
 * Another process's edit is noticed within this long (of monotonic time); the check is one stat, so requests barely
 * pay for it.
 */
const RELOAD_INTERVAL_MS = 250;
const FILE_MODE = 0o600;

interface Entry {
  readonly info: TokenInfo;
  readonly digest: Buffer;
}

/** A token that passed the digest check, kept so the next request with it skips the regex and the SHA-256. */
interface Verified {
  readonly token: string;
  readonly entry: Entry;
}

const ID_START = TOKEN_PREFIX.length + 1;

/** Opens the token file (missing = empty). A damaged file is a TOKEN_FILE_DAMAGED error, not an empty store. */
export async function openTokenStore({ file, fs = nodeFs, clock = systemClock, elapsedMs = monotonicMs }: OpenTokenStoreOptions): Promise<TokenStore> {
  const store = new FileTokenStore(file, fs, clock, new ReloadSchedule(RELOAD_INTERVAL_MS, elapsedMs));
  store.load();
  return store;
}

class FileTokenStore implements TokenStore {
  private persisted = new Map<string, Entry>();
  private readonly ephemeral = new Map<string, Entry>();
  /** By public id; at most one per known token, emptied whenever the stored set is replaced. */
  private readonly verified = new Map<string, Verified>();
  private signature = '';
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly fs: FsLayer,
    private readonly clock: Clock,
    private readonly reloads: ReloadSchedule,
  ) {}

  load(): void {
    const signature = fileSignature(this.file);
    this.replacePersisted(toEntries(readTokenFile(this.file)));
    this.signature = signature;
    this.reloads.checked();
  }

  verify(token: string): TokenInfo | undefined {
    const known = this.verifiedBefore(token);
    if (known) return known.info;
    const id = publicIdOf(token);
    if (id === undefined) return undefined;
    this.refresh();
    const entry = this.current(id);
    // Both digests are 32 bytes, so timingSafeEqual cannot throw; the id lookup leaks only the public part.
    if (!entry || !timingSafeEqual(digestToken(token), entry.digest)) return undefined;
    this.verified.set(id, { token, entry });
    return entry.info;
  }

  /**
   * The entry of a token verified earlier and still stored (the same entry object: a revocation or reload replaces
   * it). The comparison with the remembered token is constant-time, like the digest comparison it stands in for.
   */
  private verifiedBefore(token: string): Entry | undefined {
    if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return undefined;
    const hit = this.verified.get(token.slice(ID_START, ID_START + PUBLIC_ID_LENGTH));
    if (!hit) return undefined;
    this.refresh();
    const entry = this.current(hit.entry.info.id);
    return entry === hit.entry && sameSecret(hit.token, token) ? entry : undefined;
  }

  private current(id: string): Entry | undefined {
    return this.ephemeral.get(id) ?? this.persisted.get(id);
  }

  private replacePersisted(entries: Map<string, Entry>): void {
    this.persisted = entries;
    this.verified.clear();
  }

  list(): TokenInfo[] {
    this.refresh();
    return [...this.persisted.values()].map(({ info }) => ({ ...info, scopes: [...info.scopes] }));
  }

  async create(input: { name: string; scopes: Scope[] }): Promise<{ token: string; info: TokenInfo }> {
    const parsed = CreateTokenInput.safeParse(input);
    if (!parsed.success) {
      throw new TokenStoreError('INVALID_TOKEN_INPUT', parsed.error.issues.map((issue) => issue.message).join(' '));
    }
    const { name, scopes } = parsed.data;
    return this.mutate((tokens) => {
      const { token, publicId } = this.freshToken(tokens);
      const info: TokenInfo = { id: publicId, name, scopes: [...new Set(scopes)], createdAt: this.nowIso() };
      const record: StoredToken = { ...info, sha256: digestToken(token).toString('hex') };
      return { tokens: [...tokens, record], result: { token, info } };
    });
  }

  async revoke(idOrName: string): Promise<boolean> {
    return this.mutate((tokens) => {
      const byId = tokens.filter((record) => record.id === idOrName);
      const matches = byId.length > 0 ? byId : tokens.filter((record) => record.name === idOrName);
      if (matches.length === 0) return { tokens, result: false };
      if (matches.length > 1) {
        const ids = matches.map((record) => record.id).join(', ');
        throw new TokenStoreError('AMBIGUOUS_TOKEN_NAME', `name '${idOrName}' matches ${matches.length} tokens (${ids}) — revoke by id`);
      }
      return { tokens: tokens.filter((record) => record !== matches[0]), result: true };
    });
  }

  addEphemeral(scopes: Scope[], name = 'ephemeral'): string {
    const { token, publicId } = this.freshToken([]);
    const info: TokenInfo = { id: publicId, name, scopes: [...new Set(scopes)], createdAt: this.nowIso() };
    this.ephemeral.set(publicId, { info, digest: digestToken(token) });
    return token;
  }

  /** Re-reads the file when another process changed it (new inode, size or mtime); at most once per interval. */
  private refresh(): void {
    if (!this.reloads.due()) return;
    this.reloads.checked();
    const signature = fileSignature(this.file);
    if (signature === this.signature) return;
    this.signature = signature;
    try {
      this.replacePersisted(toEntries(readTokenFile(this.file)));
    } catch {
      // A hand-edit that broke the file keeps the last good set rather than locking every client out; the next
      // change to the file is read again. Writes go through this store and are atomic, so they never cause this.
    }
  }

  /**
   * Runs one read-modify-write at a time. It starts from the file, not memory, so an edit by another process is
   * never overwritten; memory changes only once the new file is durable.
   */
  private mutate<T>(change: (tokens: StoredToken[]) => { tokens: StoredToken[]; result: T }): Promise<T> {
    const run = async (): Promise<T> => {
      const current = readTokenFile(this.file);
      const { tokens, result } = change(current);
      if (tokens !== current) {
        await mkdirDurable(dirname(this.file), this.fs);
        await writeFileDurable(this.file, serializeTokenFile(tokens), { fs: this.fs, mode: FILE_MODE });
      }
      this.replacePersisted(toEntries(tokens));
      this.signature = fileSignature(this.file);
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private freshToken(tokens: readonly StoredToken[]): { token: string; publicId: string } {
    // 120 random bits make a collision practically impossible; checking costs nothing and removes the doubt.
    for (;;) {
      const candidate = generateToken();
      const taken =
        this.persisted.has(candidate.publicId) ||
        this.ephemeral.has(candidate.publicId) ||
        tokens.some((record) => record.id === candidate.publicId);
      if (!taken) return candidate;
    }
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function toEntries(tokens: readonly StoredToken[]): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const { sha256, ...info } of tokens) entries.set(info.id, { info, digest: Buffer.from(sha256, 'hex') });
  return entries;
}

/** Every durable write renames a new file into place, so the inode alone would do; size and mtime cover hand edits. */
function fileSignature(file: string): string {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : 'missing';
}

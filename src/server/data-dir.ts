import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { TEMP_MARKER, fsyncDir, writeFileDurable } from '../lib/durable-file.js';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../schema/ids.js';
import { ensureDataDirRoot, sweepRootTemps } from './data-dir-root.js';
import { processStatus } from './process-liveness.js';
import { isOwnListenerUrl } from './owner-url.js';
import { DataDirLockedError, OWNER_FILE_NAME, type OwnerInfo } from './data-dir-locked.js';
import { ignoreMissing, isCode } from '../lib/fs-errors.js';

export { DataDirLockedError, type OwnerInfo } from './data-dir-locked.js';

/**
 * Where everything lives under a data dir. Only parsed EnvironmentIds reach these paths, so no segment can escape.
 * `owner.json` exists while a serve/daemon owns the dir; each environment is a directory under `env/`.
 */
export interface DataDirLayout {
  readonly root: string;
  readonly ownerFile: string;
  readonly installerFile: string;
  envDir(env: EnvironmentId): string;
  dashboardsDir(env: EnvironmentId): string;
  eventsDir(env: EnvironmentId): string;
  tokensFile(env: EnvironmentId): string;
}

export function dataDirLayout(root: string): DataDirLayout {
  const envDir = (env: EnvironmentId): string => join(root, 'env', env);
  return {
    root,
    ownerFile: join(root, OWNER_FILE_NAME),
    installerFile: join(root, 'installer', 'agent-unix-default.sh'),
    envDir,
    dashboardsDir: (env) => join(envDir(env), 'dashboards'),
    eventsDir: (env) => join(envDir(env), 'events'),
    tokensFile: (env) => join(envDir(env), 'tokens.json'),
  };
}

/** `local` (unless `withDefault` is false) plus every `env/<id>/` directory whose name is a valid id, sorted. */
export async function listEnvironments(root: string, { withDefault = true }: { withDefault?: boolean } = {}): Promise<EnvironmentId[]> {
  const found = new Set<EnvironmentId>(withDefault ? [DEFAULT_ENVIRONMENT] : []);
  const entries = await fsp.readdir(join(root, 'env'), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  for (const entry of entries) {
    const id = EnvironmentId.safeParse(entry.name);
    if (entry.isDirectory() && id.success) found.add(id.data);
  }
  return [...found].sort();
}

/** On disk: the info plus, where `/proc` exists, `<boot id>:<start ticks>` of the owner, to see through pid reuse. */
const OwnerFile = z.object({
  pid: z.number().int().positive(),
  // Trusted where an identity decides; elsewhere only when it is this machine's (isReachable).
  url: z.string(),
  adminKey: z.string().min(1),
  startedAt: z.string(),
  identity: z.string().optional(),
  // Absent in files written before it existed: those owners were `serve` or a daemon, or are long gone.
  lasting: z.boolean().optional(),
});
type OwnerFile = z.infer<typeof OwnerFile>;

export interface Ownership {
  readonly adminKey: string;
  /** Records the URL the owner serves on, so other commands can reach its admin API. */
  publish(url: string): Promise<void>;
  /** Removes owner.json if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

const OWNER_FILE_MODE = 0o600;
const MAX_ATTEMPTS = 5;

/**
 * Makes this process the one owner of `root` (created if missing, see ensureDataDirRoot). The owner file appears
 * atomically with its full content (hard link of a written, fsynced temp file), so no reader ever sees it
 * half-written. A file left by a dead process is taken over; a live owner is a DataDirLockedError naming its pid
 * and URL. The new owner removes temp files that crashed writes left in the root (sweepRootTemps).
 */
export async function acquireOwnership(root: string, { lasting = true }: { lasting?: boolean } = {}): Promise<Ownership> {
  const { ownerFile } = dataDirLayout(root);
  await ensureDataDirRoot(root);
  const mine: OwnerFile = {
    pid: process.pid,
    url: '',
    adminKey: randomBytes(32).toString('base64url'),
    startedAt: new Date().toISOString(),
    identity: (await processStatus(process.pid))?.identity,
    lasting,
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await createExclusive(ownerFile, mine)) {
      const ownership = ownershipOf(ownerFile, mine);
      // Not before: until then another dashcd may own the root and be writing its own temp files there.
      await sweepRootTemps(root).catch(async (error: unknown) => {
        await ownership.release();
        throw error;
      });
      return ownership;
    }
    const current = await readOwnerFile(ownerFile);
    if (current === 'missing') continue;
    if (current.owner && (await isOwnerAlive(current.owner))) throw new DataDirLockedError(root, publicInfo(current.owner), !(await isReachable(current.owner)));
    await removeStale(root, ownerFile, current.text);
  }
  throw new Error(`could not take ownership of data dir ${root}: ${ownerFile} kept changing — is another dashcd starting?`);
}

/**
 * The live owner of `root`, or `undefined` when there is none or its file was left by a dead process. An owner whose
 * URL commands must not use (isReachable) is a DataDirLockedError: it holds the data dir, and nothing goes to it.
 */
export async function readOwner(root: string): Promise<OwnerInfo | undefined> {
  const current = await readOwnerFile(dataDirLayout(root).ownerFile);
  if (current === 'missing' || !current.owner || !(await isOwnerAlive(current.owner))) return undefined;
  if (!(await isReachable(current.owner))) throw new DataDirLockedError(root, publicInfo(current.owner), true);
  return publicInfo(current.owner);
}

/**
 * Whether commands may send the admin key to the owner's URL. Where identities decide, the file is a live dashcd's
 * and so is its URL. Elsewhere a committed file can name a live pid, and only a URL a dashcd on this machine
 * publishes is trusted: its author's host must never get the key.
 */
async function isReachable(owner: OwnerFile): Promise<boolean> {
  return (await identityDecides()) || isOwnListenerUrl(owner.url);
}

function ownershipOf(ownerFile: string, mine: OwnerFile): Ownership {
  let released = false;
  return {
    adminKey: mine.adminKey,
    async publish(url) {
      await writeFileDurable(ownerFile, serialize({ ...mine, url }), { mode: OWNER_FILE_MODE });
    },
    async release() {
      if (released) return;
      released = true;
      const current = await readOwnerFile(ownerFile);
      if (current === 'missing' || current.owner?.adminKey !== mine.adminKey) return;
      await fsp.unlink(ownerFile).catch(ignoreMissing);
      await fsyncDir(dirname(ownerFile));
    },
  };
}

/** `false` when the file already exists. link(2) fails with EEXIST instead of replacing, which makes it the lock. */
async function createExclusive(ownerFile: string, owner: OwnerFile): Promise<boolean> {
  const temp = `${ownerFile}${TEMP_MARKER}${randomBytes(6).toString('hex')}`;
  const handle = await fsp.open(temp, 'wx', OWNER_FILE_MODE);
  try {
    await handle.writeFile(serialize(owner));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsp.link(temp, ownerFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fsp.unlink(temp).catch(ignoreMissing);
    await fsyncDir(dirname(ownerFile));
  }
}

/**
 * Moves a stale owner file aside and deletes it. Renaming first means two processes taking over the same stale file
 * cannot both win: one rename finds nothing. If the moved file is not the stale one (a third process had already
 * taken over), it is put back and that owner reported.
 */
async function removeStale(root: string, ownerFile: string, staleText: string): Promise<void> {
  const aside = `${ownerFile}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await fsp.rename(ownerFile, aside);
  } catch (error) {
    ignoreMissing(error);
    return;
  }
  const moved = await readOwnerFile(aside);
  if (moved !== 'missing' && moved.text !== staleText && moved.owner) {
    await fsp.link(aside, ownerFile).catch(() => undefined);
    await fsp.unlink(aside).catch(ignoreMissing);
    throw new DataDirLockedError(root, publicInfo(moved.owner));
  }
  await fsp.unlink(aside).catch(ignoreMissing);
  await fsyncDir(dirname(ownerFile));
}

/**
 * A file that does not parse is damaged (writes are atomic, so never half-written) and counts as stale. The default
 * data dir is in the project, so a pull request can commit an `owner.json` naming a live pid (1) and a URL of its
 * author's: trusted, every command of a CI run would go there with its admin key. Where `/proc` tells a process's
 * identity (boot id and start time, which no committer can know), that decides (isOwnerAlive). Elsewhere, a file
 * dashcd cannot have written counts as stale too: a symbolic link, or one others may read (dashcd writes it 0600;
 * git checks files out 0644 or 0755 under the usual umask); one that passes but names another host's URL holds the
 * data dir without being sent commands (isReachable).
 */
async function readOwnerFile(file: string): Promise<'missing' | { text: string; owner: OwnerFile | undefined }> {
  let handle: fsp.FileHandle;
  try {
    // Not blocking: a FIFO put there would hold the open (and every command after it) until a writer came.
    handle = await fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    // A symbolic link: ELOOP, or EMLINK on FreeBSD.
    if (isCode(error, 'ELOOP') || isCode(error, 'EMLINK')) return { text: '', owner: undefined };
    ignoreMissing(error);
    return 'missing';
  }
  let text: string;
  try {
    const { mode } = await handle.stat();
    if ((mode & fsConstants.S_IFMT) !== fsConstants.S_IFREG || !(await identityDecides() || privateMode(mode))) return { text: '', owner: undefined };
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  try {
    const parsed = OwnerFile.safeParse(JSON.parse(text));
    return { text, owner: parsed.success ? parsed.data : undefined };
  } catch {
    return { text, owner: undefined };
  }
}

/**
 * No one else may read it, as dashcd writes it. Not asked where identities decide: some file systems (WSL's Windows
 * drives, SMB shares) show every file 0755, and there the check made every owner stale, and its lock nobody's.
 */
function privateMode(mode: number): boolean {
  // Stryker disable next-line ConditionalExpression: the suite runs on Linux, where identities decide
  if (process.platform === 'win32') return true;
  return (mode & 0o077) === 0;
}

/** Whether this machine tells processes' identities (Linux's `/proc`): asked once. */
function identityDecides(): Promise<boolean> {
  return (identityKnown ??= processStatus(process.pid).then((status) => status !== undefined));
}
let identityKnown: Promise<boolean> | undefined;

/**
 * Whether the process that wrote the file still runs. A pid alone can lie: after a reboot or a container restart
 * the same pid often belongs to another process (even to us), so where `/proc` gives an identity it decides. A killed
 * owner whose parent has not reaped it yet (a zombie, common under shells and init-less containers) still has its pid
 * and identity, and answers signal 0, but holds nothing: it counts as dead. Its URL never decides: a live owner whose
 * address has left the interfaces since keeps its lock, or a second serve would write beside it.
 */
async function isOwnerAlive(owner: OwnerFile): Promise<boolean> {
  const status = await processStatus(owner.pid);
  if (status?.exited) return false;
  // Every owner file dashcd wrote on such a machine has an identity: one without is not dashcd's (a committed file).
  if (status !== undefined) return status.identity === owner.identity;
  if (await identityDecides()) return false;
  // Without /proc: our own pid is ours only if the file was written after this process started.
  if (owner.pid === process.pid) return Date.parse(owner.startedAt) >= performance.timeOrigin - 1000;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function publicInfo({ pid, url, adminKey, startedAt, lasting = true }: OwnerFile): OwnerInfo {
  return { pid, url, adminKey, startedAt, lasting };
}

function serialize(owner: OwnerFile): string {
  return `${JSON.stringify(owner, null, 2)}\n`;
}

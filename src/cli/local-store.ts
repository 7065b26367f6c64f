import { systemClock, type Clock } from '../lib/clock.js';
import { DataDirLockedError, readOwner, type OwnerInfo } from '../server/data-dir.js';
import type { CommandIo } from './command.js';
import { CliError, ExitCode } from './exit-codes.js';

type EmbeddedServer = Awaited<ReturnType<typeof import('../server/create-server.js').startEmbeddedServer>>;

/** The store of a data dir as a command reaches it: through its lasting owner, or through a server of its own. */
export type LocalStore = { kind: 'owner'; owner: OwnerInfo } | { kind: 'embedded'; server: EmbeddedServer };

/** How long a command waits for another command to finish with the data dir before it gives up (exit 4). */
const WAIT_LIMIT_MS = 10 * 60_000;
const POLL_MS = 200;
/** How long an owner may stay without an address (still starting) before the wait gives up (exit 4). */
const STARTING_LIMIT_MS = 60_000;

/**
 * The data dir's store for a command. A `serve` or daemon that owns it and has published its URL stays up, so the
 * command goes through it. Another command's in-process server ends with that command, and an owner still starting
 * has no URL yet: either is waited for (polling owner.json), never used, so two commands on one data dir run one
 * after the other and both succeed. Losing the race to start a server is the same wait.
 */
export async function claimLocalStore(dataDir: string, io: CommandIo, clock: Clock = systemClock): Promise<LocalStore> {
  const log = io.log.child({ role: 'embedded-server' }, { level: atLeastWarn(io.log) });
  return untilSettled(dataDir, io, async (owner) => {
    if (owner !== undefined) return owner.url && owner.lasting ? { kind: 'owner', owner } : undefined;
    // Loaded only when no target is given: remote runs never need the server's code.
    const { startEmbeddedServer } = await import('../server/create-server.js');
    const started = await startEmbeddedServer({ dataDir, log }).catch(unlessLocked);
    return started && { kind: 'embedded', server: started };
  }, clock);
}

/**
 * Runs `settle` with the data dir's live owner (undefined: none) until it settles (not undefined), polling owner.json
 * in between, for at most WAIT_LIMIT_MS (exit 4). `settle` answers undefined to wait: for another command's
 * in-process server to finish, for an owner still starting to publish its URL, or after losing a race to take the
 * data dir. The first wait for each owner is logged.
 */
export async function untilSettled<T>(dataDir: string, io: Pick<CommandIo, 'log' | 'signal'>, settle: (owner: OwnerInfo | undefined) => Promise<T | undefined>, clock: Clock = systemClock): Promise<T> {
  const deadline = clock.now() + WAIT_LIMIT_MS;
  let waiting: { pid: number; since: number } | undefined;
  for (;;) {
    const owner = await readOwner(dataDir);
    const settled = await settle(owner);
    if (settled !== undefined) return settled;
    if (owner !== undefined && waiting?.pid !== owner.pid) {
      waiting = { pid: owner.pid, since: clock.now() };
      io.log.warn({ dataDir, ownerPid: owner.pid }, `data dir in use by dashcd pid ${owner.pid} (${owner.url ? 'another command' : 'still starting'}); waiting for it`);
    }
    // A server starts in seconds: one that has not published its address within STARTING_LIMIT_MS is stuck. A
    // command's own hold (an events import, a token command) has no address at all: waited for as any command is.
    if (owner !== undefined && owner.lasting && owner.url === '' && waiting !== undefined && clock.now() - waiting.since > STARTING_LIMIT_MS) {
      throw new CliError(`data dir ${dataDir} is in use by dashcd pid ${owner.pid}, still starting after ${STARTING_LIMIT_MS / 1000} s — stop it or retry`, ExitCode.TargetUnavailable);
    }
    if (clock.now() > deadline) {
      throw new CliError(`data dir ${dataDir} is still in use by dashcd pid ${waiting?.pid ?? '?'} after ${WAIT_LIMIT_MS / 60_000} minutes of waiting`, ExitCode.TargetUnavailable);
    }
    await clock.sleep(POLL_MS, io.signal);
  }
}

/**
 * For a start that lost the race to take the data dir: undefined, to wait and look again. Not for an owner no
 * command may reach (DataDirLockedError.unreachable): waiting would not change that.
 */
export function unlessLocked(error: unknown): undefined {
  if (error instanceof DataDirLockedError && !error.unreachable) return undefined;
  throw error;
}

/** `warn`, or the logger's own level when that is stricter (a child must never log more than its parent). */
export function atLeastWarn(log: CommandIo['log']): string {
  const warn = log.levels.values.warn ?? 40;
  return log.levelVal > warn ? log.level : 'warn';
}

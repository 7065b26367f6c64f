import { join } from 'node:path';

// Apart from the data dir's lock itself (data-dir.ts, which loads zod): every command's error handling names this
// error, and most commands never take the lock.

/** The lock's file in a data dir's root. */
export const OWNER_FILE_NAME = 'owner.json';

export interface OwnerInfo {
  pid: number;
  /** Empty until the owner has bound its port and published it. */
  url: string;
  /** The bearer key of the owner's admin API; the file is 0600, so only the same user can read it. */
  adminKey: string;
  startedAt: string;
  /**
   * True for `serve` and the daemon, which stay up until stopped; false for a command's own in-process server, which
   * ends with the command: other commands wait for that one to finish instead of going through it.
   */
  lasting: boolean;
}

export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';

  /**
   * `unreachable`: the owner's file names a URL no dashcd on this machine publishes, where no identity tells whose it
   * is. Its lock holds (taking it could put a second writer beside a live serve whose address has left the
   * interfaces), but no command sends the data dir's key there, so waiting for it is pointless.
   */
  constructor(
    readonly root: string,
    readonly owner: OwnerInfo,
    readonly unreachable = false,
  ) {
    super(
      unreachable
        ? `data dir ${root} is held by pid ${owner.pid}, whose owner.json names ${owner.url}, not an address of this machine: no command sends it the data dir's key — stop that dashcd, or delete ${join(root, OWNER_FILE_NAME)} if none runs`
        : owner.url
          ? `data dir ${root} is in use by dashcd pid ${owner.pid} serving ${owner.url} — stop it first (plan, apply, pull and token commands go through it by themselves)`
          : `data dir ${root} is in use by dashcd pid ${owner.pid}, which is still starting — stop it or retry in a moment`,
    );
    this.name = 'DataDirLockedError';
  }
}

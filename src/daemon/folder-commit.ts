import { readGitInfo, type GitInfo } from '../desired/git-info.js';

/** After a pass over changed files, git is read once passes have been quiet this long… */
export const COMMIT_QUIET_MS = 250;
/**
 * …or this long after the first pass that asked, whichever comes first: the status of a steady stream of saves lags
 * them by at most this. Longer than a person takes between saves, so a read seldom lands in the middle of a pass.
 */
export const COMMIT_MAX_WAIT_MS = 10_000;

export interface FolderCommitOptions {
  /** The dashboards folder (absolute). */
  dir: string;
  /** Told each commit read, in the order they were read. */
  record: (git: GitInfo | undefined) => void;
  /** Shutdown: nothing is read after it. */
  signal?: AbortSignal | undefined;
  read?: (dir: string) => Promise<GitInfo | undefined>;
  quietMs?: number;
  maxWaitMs?: number;
}

/**
 * The commit, branch and dirty flag of the folder a daemon watches, for its status, read off the path from a saved
 * file to its dashboard live. Every git process is forked from the daemon's whole address space: ~15 ms of its one
 * thread each with 1,000 dashboards held (three per read in a work tree, one outside), which a pass that read git
 * before its writes, or right after them, added to each saved file's time to live (bench `daemon-live`: p50 73.6 ms
 * without, 89.5 ms with). A full pass (start-up, resync) reads it before it reports done; a pass over saved files asks
 * for it once the saves have settled.
 */
export class FolderCommit {
  private timer: NodeJS.Timeout | undefined;
  private firstAskedAt: number | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  /** The last read found no git work tree: passes over saved files do not ask again (full passes still read). */
  private outsideGit = false;

  constructor(private readonly options: FolderCommitOptions) {}

  /** Reads the commit now (after a read already under way), and resolves once it is recorded. */
  readNow(): Promise<void> {
    this.cancel();
    return this.startRead();
  }

  /**
   * Reads the commit once no pass has asked for `quietMs`, or `maxWaitMs` after the first that did; nothing when the
   * last read found the folder outside git (a folder that becomes a work tree is seen by the next full pass). The
   * timer never keeps a stopping daemon alive, and once it stops a read that comes due reads nothing.
   */
  readWhenQuiet(): void {
    if (this.outsideGit) return;
    const { quietMs = COMMIT_QUIET_MS, maxWaitMs = COMMIT_MAX_WAIT_MS } = this.options;
    const now = performance.now();
    this.firstAskedAt ??= now;
    const delay = Math.max(0, Math.min(quietMs, this.firstAskedAt + maxWaitMs - now));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.readNow(), delay);
    this.timer.unref();
  }

  private cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firstAskedAt = undefined;
  }

  /** One read at a time, recorded in order; one asked for during a read runs once it is done (same promise). */
  private startRead(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    const { dir, record, read = readGitInfo } = this.options;
    this.reading = (async () => {
      do {
        this.readAgain = false;
        if (this.options.signal?.aborted) return;
        const git = await read(dir);
        this.outsideGit = git === undefined;
        record(git);
      } while (this.readAgain);
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }
}

import type { GitInfo } from '../desired/git-info.js';

/** A clean checkout of one commit, as a pass reads it. */
export interface PassTree {
  dir: string;
  cwd: string;
  git: GitInfo;
  /** The full sha, named in every log line of the pass. */
  revision: string;
  /** Skip invalid files (else a tree with any invalid file is not applied at all). */
  tolerateInvalid: boolean;
}

export type PassOutcome = { kind: 'applied' } | { kind: 'invalid'; errors: string[] } | { kind: 'failed'; error: string };

export interface PassSource {
  /** The tree the next pass reads; undefined while nothing was fetched (the pass does nothing). */
  next(): PassTree | undefined;
  settled(tree: PassTree, outcome: PassOutcome): void;
}

/**
 * Why a fetch or checkout failed. Callers branch on `code`, never on the message:
 * - `unreachable`: the remote did not answer (DNS, refused, timeout, TLS);
 * - `auth-failed`: the remote refused the credentials (or asked for some and none were given);
 * - `ref-not-found`: the branch is gone, or no tag matches the pattern;
 * - `git-failed`: any other non-zero exit of git (a corrupt mirror, a full disk);
 * - `git-missing`: no `git` on PATH;
 * - `output-too-large`: git printed more than the caller's buffer holds (a listing of a huge commit);
 * - `commit-refused`: the commit cannot be checked out as it is (a name no file system takes, more than a checkout may
 *   write): the commit must change;
 * - `aborted`: shutdown cut it short.
 */
export type SourceErrorCode = 'unreachable' | 'auth-failed' | 'ref-not-found' | 'git-failed' | 'git-missing' | 'commit-refused' | 'output-too-large' | 'aborted';

/** A failed git operation. The message never carries a credential (see `runGit`). */
export class SourceError extends Error {
  constructor(
    readonly code: SourceErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SourceError';
  }
}

const UNREACHABLE = [
  /could not resolve host/i,
  /failed to connect/i,
  /connection refused/i,
  /connection (?:timed out|reset)/i,
  /operation timed out/i,
  /could not read from remote repository/i,
  /unable to access/i,
  /does not appear to be a git repository/i,
  /ssl|tls|certificate/i,
  /empty reply from server/i,
  /the remote end hung up/i,
];
const AUTH = [/authentication failed/i, /could not read username/i, /could not read password/i, /\b403\b/, /\b401\b/, /permission denied \(publickey/i, /terminal prompts disabled/i];
const MISSING_REF = [/couldn't find remote ref/i, /no such ref/i];

/** Classifies git's stderr: the most specific code first (an auth failure also says "unable to access"). */
export function classifyGitFailure(stderr: string): SourceErrorCode {
  if (MISSING_REF.some((re) => re.test(stderr))) return 'ref-not-found';
  if (AUTH.some((re) => re.test(stderr))) return 'auth-failed';
  if (UNREACHABLE.some((re) => re.test(stderr))) return 'unreachable';
  return 'git-failed';
}

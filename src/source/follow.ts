/** What the daemon follows: a branch's head, or the highest-versioned tag matching a glob (`release-*`). */
export type Follow = { branch: string } | { tagPattern: string };

/** `main`, or `tags release-*` — for logs and `/status`. */
export function describeFollow(follow: Follow): string {
  return 'branch' in follow ? follow.branch : `tags ${follow.tagPattern}`;
}

/** The mirror's private ref for a branch; tags live under `refs/dashcd/tags/`. */
export function mirrorRef(follow: Follow): string {
  return 'branch' in follow ? `refs/dashcd/heads/${follow.branch}` : `refs/dashcd/tags/${follow.tagPattern}`;
}

/** The refspec that brings the followed refs into the mirror (`+`: a force-push is taken as it is). */
export function fetchRefspec(follow: Follow): string {
  return 'branch' in follow ? `+refs/heads/${follow.branch}:${mirrorRef(follow)}` : '+refs/tags/*:refs/dashcd/tags/*';
}

/** The remote's name for a mirror ref: `refs/dashcd/tags/release-7` → `refs/tags/release-7`. */
export function remoteRefName(mirrorRefName: string): string {
  return mirrorRefName.replace(/^refs\/dashcd\//, 'refs/');
}

/**
 * Names git would refuse or misread, before any git runs: a ref name must pass `git check-ref-format`
 * rules that matter here (no `..`, no leading `-` or `/`, no control characters, spaces, `~^:?[\`); a tag pattern
 * may use `*` as its only glob.
 */
export function followProblem(follow: Follow): string | undefined {
  const [what, name] = 'branch' in follow ? ['--branch', follow.branch] : ['--tag-pattern', follow.tagPattern.replace(/\*/g, 'x')];
  const bad =
    name === '' ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.endsWith('.lock') ||
    name.includes('..') ||
    name.includes('//') ||
    name.includes('@{') ||
    /[\s~^:?[\\\x00-\x1f\x7f]/.test(name);
  return bad ? `${what} '${'branch' in follow ? follow.branch : follow.tagPattern}' is not a valid git ref name` : undefined;
}

/** Whether a push to `ref` (`refs/heads/main`, `refs/tags/release-7`) moves what `follow` follows. */
export function followsRef(follow: Follow, ref: string): boolean {
  if ('branch' in follow) return ref === `refs/heads/${follow.branch}`;
  if (!ref.startsWith('refs/tags/')) return false;
  // `*` matches within one path segment, as for-each-ref's pattern does for the mirror's tags.
  const glob = follow.tagPattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
  return new RegExp(`^${glob}$`).test(ref.slice('refs/tags/'.length));
}

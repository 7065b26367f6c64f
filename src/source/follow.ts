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
 * rules that matter here (no `..`, no leading `-` or `/`, no control characters, spaces, `~^:?*[\`); a tag pattern
 * may use `*` as its only glob.
 */
export function followProblem(follow: Follow): string | undefined {
  // A branch is one name: `*` in it would make the fetch refspec a pattern that mirrors every branch.
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
    /[\s~^:?*[\\\x00-\x1f\x7f]/.test(name);
  return bad ? `${what} '${'branch' in follow ? follow.branch : follow.tagPattern}' is not a valid git ref name` : undefined;
}

/** Whether a push to `ref` (`refs/heads/main`, `refs/tags/release-7`) moves what `follow` follows. */
export function followsRef(follow: Follow, ref: string): boolean {
  if ('branch' in follow) return ref === `refs/heads/${follow.branch}`;
  if (!ref.startsWith('refs/tags/')) return false;
  return matchesTagGlob(follow.tagPattern, ref.slice('refs/tags/'.length));
}

/**
 * Whether `name` matches `pattern`, where `*` matches any run of characters within one path segment (as
 * for-each-ref's pattern does for the mirror's tags) and every other character itself. Matched segment by segment,
 * each by the greedy two-pointer walk that only ever goes back to the last `*`: time bounded by the product of the
 * two lengths. The pattern is a committer's (`source.tagPattern` in dashcd.yaml) and the name a pusher's: as a
 * backtracking RegExp, `r************x` against a 40-character tag took two minutes of the daemon's only thread.
 */
export function matchesTagGlob(pattern: string, name: string): boolean {
  const patternSegments = pattern.split('/');
  const nameSegments = name.split('/');
  // Stryker disable next-line StringLiteral: the lengths are equal, so every segment has its name segment
  return patternSegments.length === nameSegments.length && patternSegments.every((segment, i) => matchesSegment(segment, nameSegments[i] ?? ''));
}

function matchesSegment(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  // Where the last `*` was, and where in the name its match ends so far: a mismatch lets that `*` take one more.
  let star = -1;
  let starEnd = 0;
  while (n < name.length) {
    // Past the pattern's end pattern[p] is undefined, which is neither `*` nor a character of the name.
    if (pattern[p] === '*') {
      star = p++;
      starEnd = n;
    } else if (pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star !== -1) {
      p = star + 1;
      n = ++starEnd;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { DaemonStatus } from '../../../src/daemon/daemon-status.js';
import { followRepository } from '../../../src/daemon/follow-repository.js';
import { limitRefusals, ownershipTagProblem, repositoryLimits, type RepositoryLimits } from '../../../src/daemon/repository-limits.js';
import { SourceStatus } from '../../../src/daemon/source-status.js';
import { openGitSource } from '../../../src/source/git-source.js';
import { createGitRemote } from '../../helpers/git-remote.js';
import { captureLog } from '../../helpers/log-capture.js';
import { waitFor } from '../../helpers/wait.js';

const OPS: RepositoryLimits = { ownershipTag: 'owned-by:ops', maxDelete: 20 };

describe('repositoryLimits', () => {
  it("is the operator's --ownership-tag and --max-delete, else the built-in tag and 5", () => {
    expect(repositoryLimits({ ownershipTag: undefined, maxDelete: undefined })).toEqual({ ownershipTag: DEFAULT_OWNERSHIP_TAG, maxDelete: 5 });
    expect(repositoryLimits({ ownershipTag: 'owned-by:ops', maxDelete: 0 })).toEqual({ ownershipTag: 'owned-by:ops', maxDelete: 0 });
  });
});

describe('ownershipTagProblem', () => {
  it.each(['', ' x', 'x ', '\tx'])('refuses %j as dashcd.yaml would', (tag) => {
    expect(ownershipTagProblem(tag)).toBe(`--ownership-tag must be a tag without surrounding blanks, like 'managed-by:dashcd', got '${tag}'`);
  });

  it('takes any other tag', () => {
    expect(ownershipTagProblem('owned-by:ops team')).toBeUndefined();
  });
});

describe('limitRefusals', () => {
  it("lets through the operator's tag with maxDelete absent or within the ceiling", () => {
    expect(limitRefusals({ ownershipTag: 'owned-by:ops' }, OPS)).toEqual([]);
    expect(limitRefusals({ ownershipTag: 'owned-by:ops', maxDelete: 20 }, OPS)).toEqual([]);
    expect(limitRefusals({ ownershipTag: 'owned-by:ops', maxDelete: 0 }, OPS)).toEqual([]);
  });

  it('refuses another tag, the default one included when the operator chose their own, and a maxDelete above the ceiling', () => {
    expect(limitRefusals({ ownershipTag: DEFAULT_OWNERSHIP_TAG, maxDelete: 21 }, OPS)).toEqual([
      "dashcd.yaml's ownershipTag is 'managed-by:dashcd', not the operator's 'owned-by:ops' (--ownership-tag): prune deletes what carries the tag, so only the operator chooses it",
      "dashcd.yaml's maxDelete 21 is more than the 20 deletions per pass the operator allows (--max-delete)",
    ]);
    // A repository without a dashcd.yaml is told so, not that a file it lacks names a tag.
    expect(limitRefusals({ ownershipTag: DEFAULT_OWNERSHIP_TAG }, OPS, { hasFile: false })).toEqual([
      "without a dashcd.yaml the ownership tag is the default 'managed-by:dashcd', not the operator's 'owned-by:ops' (--ownership-tag): prune deletes what carries the tag, so only the operator chooses it",
    ]);
  });
});

const started: { stop: AbortController; dir: string }[] = [];
afterEach(async () => {
  for (const { stop, dir } of started.splice(0)) {
    stop.abort();
    await rm(dir, { recursive: true, force: true });
  }
});

/** The fetch loop on a file:// remote with the operator's `limits`; a pass applies whatever it reads. */
async function followWith(limits: RepositoryLimits) {
  const dir = await mkdtemp(join(tmpdir(), 'dashcd-limits-'));
  const stop = new AbortController();
  started.push({ stop, dir });
  const remote = await createGitRemote(dir);
  const { lines, log } = captureLog();
  const follow = { branch: 'main' };
  const source = await openGitSource({ url: remote.fileUrl, follow, root: join(dir, 'git'), log });
  const state = new SourceStatus({ repo: remote.fileUrl, follow, path: 'dashboards', env: 'local', skipInvalid: false }, new DaemonStatus().metrics);
  const push = async (yaml: string): Promise<string> => {
    const sha = await remote.commit({ 'dashcd.yaml': yaml, 'dashboards/a.yaml': `x: ${yaml.length}\n` }, 'config');
    await remote.push();
    return sha;
  };
  const onNewRevision = (): void => {
    const tree = state.next();
    if (tree) state.settled(tree, { kind: 'applied' });
  };
  return { lines, state, push, start: () => followRepository({ source, state, fetchMs: 1000, log, signal: stop.signal, onNewRevision, limits }) };
}

describe('following a repository within the operator’s limits', { timeout: 30_000 }, () => {
  it("refuses a commit whose dashcd.yaml keeps the default tag when the operator chose another, and applies one that names the operator's", async () => {
    const { lines, state, push, start } = await followWith(OPS);
    const unnamed = await push('prune: true\n');
    start();
    // Either outcome ends the wait: refused (pending), or applied (live) where the limits are not kept.
    const seen = await waitFor(() => state.toJSON().pending ?? state.toJSON().live, { what: 'the commit fetched' });
    expect(seen).toMatchObject({ commit: unnamed, refused: [expect.stringContaining("ownershipTag is 'managed-by:dashcd', not the operator's 'owned-by:ops'")] });
    expect(state.next()).toBeUndefined();
    const warning = lines.find((line) => typeof line.msg === 'string' && line.msg.startsWith('revision refused: '));
    expect(warning).toMatchObject({ revision: unnamed, msg: "revision refused: its dashcd.yaml asks for another ownership tag or more deletions than the operator's (--ownership-tag, --max-delete); nothing of it is applied" });

    const named = await push('ownershipTag: owned-by:ops\nprune: true\nmaxDelete: 20\n');
    await waitFor(() => state.liveCommit() === named, { what: "the commit with the operator's tag live" });
    expect(state.toJSON().pending).toBeNull();

    const greedy = await push('ownershipTag: owned-by:ops\nprune: true\nmaxDelete: 21\n');
    const refused = await waitFor(() => (state.toJSON().pending?.commit === greedy || state.liveCommit() === greedy ? state.toJSON() : undefined), { what: 'the greedy commit fetched' });
    expect(refused.pending?.refused).toEqual(["dashcd.yaml's maxDelete 21 is more than the 20 deletions per pass the operator allows (--max-delete)"]);
    expect(state.liveCommit()).toBe(named);
  });
});

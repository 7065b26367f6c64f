import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openGitSource, type GitSource, type GitSourceOptions } from '../../src/source/git-source.js';
import { SourceError } from '../../src/source/source-error.js';
import { createGitRemote, git, type GitRemote } from '../helpers/git-remote.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { captureLog } from '../helpers/log-capture.js';

const TOKEN = 'glpat-s3cr3t-t0ken-4-tests';

let dir: string;
let remote: GitRemote;
const servers: GitHttpServer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashcd-source-'));
  remote = await createGitRemote(dir);
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await rm(dir, { recursive: true, force: true });
});

async function serve(token?: string): Promise<{ server: GitHttpServer; url: string }> {
  const server = await startGitHttpServer({ projectRoot: remote.projectRoot, ...(token ? { token } : {}) });
  servers.push(server);
  return { server, url: `${server.url}/dashboards.git` };
}

function open(url: string, options: Partial<GitSourceOptions> = {}): Promise<GitSource> {
  return openGitSource({ url, follow: { branch: 'main' }, root: join(dir, 'data', 'git'), log: captureLog().log, ...options });
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

/** Every file under `root`, recursively, as bytes. */
async function everyFile(root: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, bytes: await readFile(path) });
  }
  return out;
}

describe('several followers of one mirror (a daemon with environments following their own refs)', () => {
  it('fetch and check out at the same time: every call succeeds, one commit has one checkout', async () => {
    const sha = await remote.commit({ 'dashboards/a.yaml': 'a: 1\n' }, 'a');
    await remote.push();
    await remote.pushTag('release-1');
    const [dev, prod] = [await open(remote.fileUrl), await open(remote.fileUrl, { follow: { tagPattern: 'release-*' } })];
    for (let round = 0; round < 3; round++) {
      const revisions = await Promise.all([dev.fetch(), prod.fetch(), dev.fetch(), prod.fetch()]);
      expect(revisions.map((r) => r.commit)).toEqual([sha, sha, sha, sha]);
      const trees = await Promise.all(revisions.map((r, i) => (i % 2 === 0 ? dev : prod).checkout(r)));
      expect(new Set(trees).size).toBe(1);
      expect(await readFile(join(trees[0] ?? '', 'dashboards/a.yaml'), 'utf8')).toBe('a: 1\n');
    }
    expect(await readdir(join(dev.dir, 'checkouts'))).toEqual([sha]);
  });

  it('fetch a new commit at the same time: every call succeeds (they raced for the ref: "cannot lock ref", a false failure a commit)', async () => {
    await remote.commit({ 'dashboards/a.yaml': 'a: 0\n' }, 'first');
    await remote.push();
    const dev = await open(remote.fileUrl);
    const prod = await open(remote.fileUrl, { follow: { tagPattern: 'release-*' } });
    await dev.fetch();
    for (let round = 1; round <= 4; round++) {
      const sha = await remote.commit({ 'dashboards/a.yaml': `a: ${round}\n` }, `round ${round}`);
      await remote.push();
      await remote.pushTag(`release-${round}`);
      // Environments following one branch share its follower's source; another ref shares the mirror.
      const fetched = await Promise.allSettled([dev.fetch(), dev.fetch(), dev.fetch(), prod.fetch()]);
      expect(fetched.map((f) => (f.status === 'fulfilled' ? f.value.commit : String(f.reason))), `round ${round}`).toEqual([sha, sha, sha, sha]);
    }
  });

  it("another follower's clean-up while a checkout is being written leaves that checkout whole", async () => {
    // Many files, so the checkout is still being written while the other follower cleans up over and over.
    const files = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`dashboards/f${i}.yaml`, `n: ${i}\n`]));
    const sha = await remote.commit({ ...files, 'dashcd.yaml': 'ignore: []\n' }, 'many files');
    await remote.push();
    await remote.pushTag('release-1');
    const [dev, prod] = [await open(remote.fileUrl), await open(remote.fileUrl, { follow: { tagPattern: 'release-*' } })];
    const revision = await prod.fetch();
    let done = false;
    const cleanUps = (async () => {
      let rounds = 0;
      // The other follower keeps this very commit (it is live in its environment too), and nothing else.
      for (; !done || rounds === 0; rounds++) await dev.retain([sha]);
      return rounds;
    })();
    const tree = await prod.checkout(revision).finally(() => (done = true));
    expect(await cleanUps).toBeGreaterThan(1);
    const written = await everyFile(tree);
    expect(written.length).toBe(401);
    expect(await readFile(join(tree, 'dashcd.yaml'), 'utf8')).toBe('ignore: []\n');
  });
});

describe('following a branch', () => {
  it('fetches the pushed commit over file:// with its metadata and checks exactly it out, without .git', async () => {
    const sha = await remote.commit({ 'dashboards/a.yaml': 'a: 1\n', 'dashcd.yaml': 'ignore: []\n' }, 'Add dashboard a\n\nbody text');
    await remote.push();
    const source = await open(remote.fileUrl);
    const revision = await source.fetch();
    expect(revision).toMatchObject({ commit: sha, ref: 'refs/heads/main', author: 'Dana Dashboard <dana@example.com>', subject: 'Add dashboard a' });
    expect(sha.startsWith(revision.shortCommit)).toBe(true);
    expect(Number.isNaN(Date.parse(revision.committedAt))).toBe(false);
    const tree = await source.checkout(revision);
    expect(await readFile(join(tree, 'dashboards/a.yaml'), 'utf8')).toBe('a: 1\n');
    expect((await readdir(tree)).sort()).toEqual(['dashboards', 'dashcd.yaml']);
  });

  it('over http: a push is the next fetch, and a force-push back makes the older commit the revision again', async () => {
    const first = await remote.commit({ 'dashboards/a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    const { url } = await serve();
    const source = await open(url);
    expect((await source.fetch()).commit).toBe(first);
    const second = await remote.commit({ 'dashboards/a.yaml': 'v: 2\n', 'dashboards/b.yaml': 'b: 1\n' }, 'two');
    await remote.push();
    expect((await source.fetch()).commit).toBe(second);
    await remote.resetTo(first);
    await remote.push();
    const back = await source.fetch();
    expect(back.commit).toBe(first);
    const tree = await source.checkout(back);
    expect(await readdir(join(tree, 'dashboards'))).toEqual(['a.yaml']);
    expect(await readFile(join(tree, 'dashboards/a.yaml'), 'utf8')).toBe('v: 1\n');
  });

  it('a deleted branch is a ref-not-found error and the last fetched revision stays usable', async () => {
    const sha = await remote.commit({ 'dashboards/a.yaml': 'v: 1\n' }, 'one');
    await remote.push('live');
    const source = await open(remote.fileUrl, { follow: { branch: 'live' } });
    await source.fetch();
    await remote.deleteBranch('live');
    const error = await failure(source.fetch());
    expect(error.code).toBe('ref-not-found');
    expect(error.message).toContain('live');
    const kept = await source.lastFetched();
    expect(kept?.commit).toBe(sha);
    expect(await readFile(join(await source.checkout(kept!), 'dashboards/a.yaml'), 'utf8')).toBe('v: 1\n');
  });

  it("a branch the remote lacks names the remote's default branch when it is another (git init made master)", async () => {
    await remote.commit({ 'dashboards/a.yaml': 'v: 1\n' }, 'one');
    await remote.push('master');
    await git(remote.bareDir, ['symbolic-ref', 'HEAD', 'refs/heads/master']);
    const error = await failure((await open(remote.fileUrl)).fetch());
    expect(error.code).toBe('ref-not-found');
    expect(error.message).toBe(`no branch main in ${remote.fileUrl} (its default branch is master: follow it with --branch master)`);
    // A remote whose default branch is not there either: nothing to hint.
    await git(remote.bareDir, ['symbolic-ref', 'HEAD', 'refs/heads/nowhere']);
    const plain = await failure((await open(remote.fileUrl)).fetch());
    expect(plain.message).toBe(`no branch main in ${remote.fileUrl}`);
  });

  it('an unreachable remote is an unreachable error; the next fetch after it is back succeeds', async () => {
    const sha = await remote.commit({ 'a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    const { server, url } = await serve();
    const source = await open(url);
    await server.stop();
    expect((await failure(source.fetch())).code).toBe('unreachable');
    expect(await source.lastFetched()).toBeUndefined();
    await server.start();
    expect((await source.fetch()).commit).toBe(sha);
  });

  it('reopening the data dir finds the last fetched revision without the remote (a restart during an outage)', async () => {
    const sha = await remote.commit({ 'a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    const { server, url } = await serve();
    await (await open(url)).fetch();
    await server.stop();
    const reopened = await open(url);
    expect((await reopened.lastFetched())?.commit).toBe(sha);
  });
});

describe('following tags', () => {
  it('takes the highest version matching the pattern (release-10 after release-9), peeling annotated tags', async () => {
    await remote.commit({ 'a.yaml': 'v: 9\n' }, 'nine');
    await remote.pushTag('release-9');
    const ten = await remote.commit({ 'a.yaml': 'v: 10\n' }, 'ten');
    await remote.pushTag('release-10');
    await remote.commit({ 'a.yaml': 'v: 11\n' }, 'not released');
    await remote.pushTag('nightly-11');
    await remote.push();
    const source = await open(remote.fileUrl, { follow: { tagPattern: 'release-*' } });
    const revision = await source.fetch();
    expect(revision).toMatchObject({ commit: ten, ref: 'refs/tags/release-10', subject: 'ten' });
  });

  it('no matching tag is a ref-not-found error naming the pattern', async () => {
    await remote.commit({ 'a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    const source = await open(remote.fileUrl, { follow: { tagPattern: 'release-*' } });
    const error = await failure(source.fetch());
    expect(error).toMatchObject({ code: 'ref-not-found', message: expect.stringContaining("'release-*'") });
  });
});

describe('credentials', () => {
  it('a token reaches the server for the fetch but never the data dir, the clone config, an error or a log line', async () => {
    await remote.commit({ 'a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    const { url } = await serve(TOKEN);
    const { lines, log } = captureLog();
    const root = join(dir, 'data', 'git');
    const denied = await failure(openGitSource({ url, follow: { branch: 'main' }, root, log }).then((s) => s.fetch()));
    expect(denied.code).toBe('auth-failed');
    const wrong = await failure(openGitSource({ url, follow: { branch: 'main' }, root, log, credentials: { token: `${TOKEN}-wrong` } }).then((s) => s.fetch()));
    expect(wrong.code).toBe('auth-failed');
    expect(wrong.message).not.toContain(TOKEN);
    const source = await openGitSource({ url, follow: { branch: 'main' }, root, log, credentials: { token: TOKEN } });
    const revision = await source.fetch();
    await source.checkout(revision);
    const encoded = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    const leaks = (await everyFile(join(dir, 'data'))).filter(({ bytes }) => bytes.includes(TOKEN) || bytes.includes(encoded));
    expect(leaks.map((l) => l.path)).toEqual([]);
    expect(await readFile(join(source.dir, 'repo.git', 'config'), 'utf8')).not.toMatch(/extraheader|token|url\s*=/i);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it('an ssh remote is fetched through ssh with the key file and known_hosts given, in batch mode', async () => {
    const sha = await remote.commit({ 'a.yaml': 'v: 1\n' }, 'one');
    await remote.push();
    // A stand-in `ssh` first on PATH: records its arguments, then runs the remote command (git-upload-pack) locally,
    // which is what sshd would do on the far side.
    const bin = join(dir, 'bin');
    const argsFile = join(dir, 'ssh-args');
    await mkdir(bin);
    await writeFile(join(bin, 'ssh'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nfor last; do :; done\nexec sh -c "$last"\n`);
    await chmod(join(bin, 'ssh'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    try {
      const credentials = { sshKeyFile: join(dir, 'deploy key'), sshKnownHostsFile: join(dir, 'known_hosts') };
      const source = await open(`ssh://git@git.example.com${remote.bareDir}`, { credentials });
      expect((await source.fetch()).commit).toBe(sha);
    } finally {
      process.env.PATH = path;
    }
    const args = (await readFile(argsFile, 'utf8')).split('\n');
    expect(args.slice(0, 2)).toEqual(['-i', join(dir, 'deploy key')]);
    expect(args).toEqual(expect.arrayContaining(['BatchMode=yes', 'IdentitiesOnly=yes', `UserKnownHostsFile=${join(dir, 'known_hosts')}`, 'git@git.example.com']));
  });

  it('a password in the repository URL is refused before git runs', async () => {
    const error = await failure(open('https://user:hunter2@example.com/org/repo.git').then((s) => s.fetch()));
    expect(error.code).toBe('auth-failed');
    expect(error.message).not.toContain('hunter2');
  });
});

it('a symlink in the commit is checked out as a plain file holding its target, never followed', async () => {
  await remote.commit({ 'dashboards/a.yaml': 'v: 1\n' }, 'one');
  const work = join(dir, 'work');
  await symlink('/etc/passwd', join(work, 'dashboards', 'leak.yaml'));
  await git(work, ['add', '--all']);
  await git(work, ['commit', '--quiet', '-m', 'symlink']);
  await remote.push();
  const source = await open(remote.fileUrl);
  const tree = await source.checkout(await source.fetch());
  const leak = join(tree, 'dashboards', 'leak.yaml');
  expect((await lstat(leak)).isSymbolicLink()).toBe(false);
  expect(await readFile(leak, 'utf8')).toBe('/etc/passwd');
});

describe('what a checkout writes: the files themselves, only those a pass reads, within bounds', () => {
  const PATHS = ['dashboards', 'dashcd.yaml', 'dashcd.yml'];
  it('holds the dashboards folder and dashcd.yaml only: a file elsewhere, even one no file system can name, is not written', async () => {
    await remote.commit({ 'dashboards/a.yaml': 'v: 1\n', 'dashcd.yaml': 'ignore: []\n', 'docs/readme.md': 'hi\n' }, 'one');
    await remote.commitIndexed({ [`docs/${'a'.repeat(300)}`]: 'long\n' }, 'a name over 255 bytes outside the dashboards');
    await remote.push();
    const source = await open(remote.fileUrl, { paths: PATHS });
    const tree = await source.checkout(await source.fetch());
    expect((await everyFile(tree)).map((f) => f.path.slice(tree.length + 1)).sort()).toEqual(['dashboards/a.yaml', 'dashcd.yaml']);
  });

  it('refuses a commit with a name longer than 255 bytes in the dashboards folder, saying so (was: git read-tree failed, and the daemon would not start)', async () => {
    await remote.commit({ 'dashboards/a.yaml': 'v: 1\n' }, 'one');
    await remote.commitIndexed({ [`dashboards/${'b'.repeat(300)}.yaml`]: 'v: 2\n' }, 'long name');
    await remote.push();
    const source = await open(remote.fileUrl, { paths: PATHS });
    const error = await failure(source.checkout(await source.fetch()));
    expect(error.code).toBe('commit-refused');
    expect(error.message).toMatch(/cannot be checked out: the commit holds a file name longer than 255 bytes, which no file system here can create: "dashboards\/bbbb/);
  });

  it("applies none of the commit's .gitattributes: a filter the mirror defines is never run", async () => {
    await remote.commit({ 'dashboards/a.yaml': 'v: 1\n', '.gitattributes': '*.yaml filter=evil\n' }, 'filtered');
    await remote.push();
    const source = await open(remote.fileUrl, { paths: PATHS });
    const revision = await source.fetch();
    const marker = join(dir, 'filter-ran');
    await git(join(source.dir, 'repo.git'), ['config', 'filter.evil.smudge', `sh -c 'touch ${marker}; cat'`]);
    await git(join(source.dir, 'repo.git'), ['config', 'filter.evil.required', 'true']);
    const tree = await source.checkout(revision);
    expect(await readFile(join(tree, 'dashboards', 'a.yaml'), 'utf8')).toBe('v: 1\n');
    await expect(stat(marker)).rejects.toThrow(/ENOENT/);
  });

  it('writes files that share content, and many files, each whole', async () => {
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`dashboards/d${i}.yaml`, i % 3 === 0 ? 'same: 1\n' : `v: ${i}\n${'x'.repeat(i * 2000)}\n`]));
    await remote.commit(files, 'many');
    await remote.push();
    const source = await open(remote.fileUrl, { paths: PATHS });
    const tree = await source.checkout(await source.fetch());
    for (const [path, text] of Object.entries(files)) expect(await readFile(join(tree, path), 'utf8'), path).toBe(text);
  });
});

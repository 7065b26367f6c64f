import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDirPerTest } from '../../helpers/scratch.js';

// A machine where /proc tells no process's identity (macOS, Windows): only there does an owner file's URL matter.
vi.mock('../../../src/server/process-liveness.js', () => ({ processStatus: async () => undefined }));
const { DataDirLockedError, acquireOwnership, readOwner } = await import('../../../src/server/data-dir.js');
const { unlessLocked } = await import('../../../src/cli/local-store.js');

let root: string;
tempDirPerTest('dashcd-data-noproc-', (created) => (root = created));

/** A file as a live owner (this test's parent process, alive throughout) writes it: 0600, no identity. */
async function liveOwnerFile(url: string, mode = 0o600): Promise<void> {
  await writeFile(join(root, 'owner.json'), JSON.stringify({ pid: process.ppid, url, adminKey: 'k', startedAt: new Date().toISOString(), lasting: true }), { mode });
}

describe('the data dir lock where no /proc identity decides', () => {
  it('routes commands to a live owner on one of this machine\'s addresses, and keeps its lock', async () => {
    await liveOwnerFile('http://127.0.0.1:1');
    expect(await readOwner(root)).toMatchObject({ pid: process.ppid, url: 'http://127.0.0.1:1', adminKey: 'k' });
    await expect(acquireOwnership(root)).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED', unreachable: false });
  });

  it('sends no command to a live owner whose URL is not this machine\'s, yet never takes its lock', async () => {
    // A committed file naming a live pid and its author's host must not get the admin key; a live serve whose
    // address has left the interfaces (a laptop that changed networks) must not get a second writer beside it.
    for (const url of ['http://203.0.113.9:8080', 'http://attacker.example:1', 'http://[fe80::1]:8080']) {
      await liveOwnerFile(url);
      const read = await readOwner(root).then(() => undefined, (error: unknown) => error);
      expect(read, url).toBeInstanceOf(DataDirLockedError);
      expect((read as InstanceType<typeof DataDirLockedError>).message, url).toContain(`names ${url}, not an address of this machine: no command sends it the data dir's key`);
      const taken = await acquireOwnership(root).then(() => undefined, (error: unknown) => error);
      expect(taken, url).toMatchObject({ code: 'DATA_DIR_LOCKED', unreachable: true });
      // A command does not wait for it: nothing it waits for would change.
      expect(() => unlessLocked(taken), url).toThrow(DataDirLockedError);
    }
  });

  it('takes over a file others may read (a checkout under the usual umask) or a dead owner\'s, whatever its URL', async () => {
    await liveOwnerFile('http://203.0.113.9:8080', 0o644);
    expect(await readOwner(root)).toBeUndefined();
    await (await acquireOwnership(root)).release();
    await writeFile(join(root, 'owner.json'), JSON.stringify({ pid: 2 ** 22 + 1, url: 'http://203.0.113.9:8080', adminKey: 'k', startedAt: new Date().toISOString(), lasting: true }), { mode: 0o600 });
    expect(await readOwner(root)).toBeUndefined();
    await (await acquireOwnership(root)).release();
  });
});

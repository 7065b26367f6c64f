import { describe, expect, it } from 'vitest';
import { untilSettled } from '../../../src/cli/local-store.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { acquireOwnership } from '../../../src/server/data-dir.js';
import { captureLog } from '../../helpers/log-capture.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let dir = '';
tempDirPerTest('dashcd-local-store-', (created) => (dir = created));

/** A clock whose sleeps pass at once, moving its time on. */
function fastClock(): { now(): number; sleep(ms: number): Promise<void> } {
  let now = 0;
  return { now: () => now, sleep: async (ms) => void (now += ms) };
}

describe('waiting for a data dir another dashcd holds', () => {
  it('gives up on an owner still starting after a minute, saying so (it waited ten minutes), and logs the wait once', async () => {
    const starting = await acquireOwnership(dir);
    const { lines, log } = captureLog('warn');
    try {
      const clock = fastClock();
      const waited = untilSettled(dir, { log, signal: new AbortController().signal }, async (owner) => (owner === undefined ? 'free' : undefined), clock);
      await expect(waited).rejects.toMatchObject({ exitCode: ExitCode.TargetUnavailable, message: `data dir ${dir} is in use by dashcd pid ${process.pid}, still starting after 60 s — stop it or retry` });
      expect(clock.now()).toBeGreaterThan(60_000);
      expect(clock.now()).toBeLessThan(61_000);
      expect(lines).toEqual([expect.objectContaining({ ownerPid: process.pid, msg: `data dir in use by dashcd pid ${process.pid} (still starting); waiting for it` })]);
    } finally {
      await starting.release();
    }
  });

  it("waits past that minute for a command's own hold without an address (an events import took 60 s and was refused)", async () => {
    const importing = await acquireOwnership(dir, { lasting: false });
    try {
      const clock = fastClock();
      const waited = await untilSettled(dir, { log: captureLog().log, signal: new AbortController().signal }, async () => (clock.now() > 90_000 ? 'still waiting' : undefined), clock);
      expect(waited).toBe('still waiting');
    } finally {
      await importing.release();
    }
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JOURNAL_BYTES } from '../../src/server/store/journaled-files.js';
import { folderBytes } from '../helpers/folder-bytes.js';
import { dashboardVersion, killTestScope, startServeChild, verifyAfterRestart } from '../helpers/serve-child.js';

const IDS = Array.from({ length: 96 }, (_, i) => `77777777-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
/** Concurrent writers: each owns every WRITERS-th id, so one id's versions are totally ordered. */
const WRITERS = 32;
const ROUNDS = 3;

async function journalBytes(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'env', 'local', 'dashboards-journal');
  return folderBytes(dir);
}

describe('the write-ahead journal of `dashcd serve` under SIGKILL during a burst of PUTs', () => {
  const scope = killTestScope('dashcd-journal-crash-');
  const random = scope.random;

  it(`replays every acknowledged write into its file after each of ${ROUNDS} kills, from a bounded journal`, async () => {
    await scope.replayable(rounds);
  });

  async function rounds(): Promise<void> {
    const { dataDir, token } = await scope.dataDirWithToken();
    const acked = new Map<string, number>(IDS.map((id) => [id, 0]));
    const sent = new Map<string, number>(IDS.map((id) => [id, 0]));
    let journalSeenNonEmpty = false;
    for (let round = 0; round < ROUNDS; round++) {
      const child = await startServeChild(dataDir, token);
      // Replay emptied the journal before the server answered: everything is in the files it serves.
      expect(await journalBytes(dataDir)).toBe(0);
      await verifyAfterRestart(child, dataDir, IDS, { acked, sent, createdIds: [] });
      let killed = false;
      let ackedThisRound = 0;
      let reached = () => {};
      const enough = new Promise<void>((resolve) => (reached = resolve));
      const headers = { authorization: `Api-Token ${token}`, 'content-type': 'application/json' };
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const mine = IDS.filter((_, i) => i % WRITERS === w);
        for (let k = 0; !killed; k++) {
          const id = mine[k % mine.length]!;
          const n = (sent.get(id) ?? 0) + 1;
          sent.set(id, n);
          const response = await fetch(`${child.url}/api/config/v1/dashboards/${id}`, { method: 'PUT', headers, body: JSON.stringify(dashboardVersion(id, n)) }).catch(() => undefined);
          if (!response) return;
          expect([201, 204]).toContain(response.status);
          acked.set(id, n);
          if (++ackedThisRound >= IDS.length * 2) reached();
        }
      });
      await enough;
      // Kill while writes are in flight and the files lag behind the journal (a burst, not a trickle).
      await new Promise((resolve) => setTimeout(resolve, random() * 200));
      killed = true;
      child.process.kill('SIGKILL');
      await Promise.all([...writers, new Promise((resolve) => child.process.once('exit', resolve))]);
      const left = await journalBytes(dataDir);
      journalSeenNonEmpty ||= left > 0;
      // What a restart replays is bounded: the journal limit plus the batches in flight (each PUT at most once).
      expect(left).toBeLessThanOrEqual(MAX_JOURNAL_BYTES + WRITERS * 2 * JSON.stringify(dashboardVersion(IDS[0]!, 1)).length);
    }
    const last = await startServeChild(dataDir, token);
    expect(await journalBytes(dataDir)).toBe(0);
    await verifyAfterRestart(last, dataDir, IDS, { acked, sent, createdIds: [] });
    last.process.kill('SIGKILL');
    // The kills found acknowledged writes still only in the journal: the replay path was exercised.
    expect(journalSeenNonEmpty).toBe(true);
  }
});

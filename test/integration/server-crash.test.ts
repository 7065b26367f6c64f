import { describe, expect, it } from 'vitest';
import { dashboardVersion, killTestScope, startServeChild, verifyAfterRestart } from '../helpers/serve-child.js';

const IDS = Array.from({ length: 6 }, (_, i) => `66666666-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
const ROUNDS = 5;

describe('crash safety of `dashcd serve` under SIGKILL', () => {
  const scope = killTestScope('dashcd-crash-');
  const random = scope.random;

  it(`keeps every dashboard whole and every acknowledged write across ${ROUNDS} kills`, async () => {
    await scope.replayable(crashRounds);
  });

  async function crashRounds(): Promise<void> {
    const { dataDir, token } = await scope.dataDirWithToken();
    /** Per id: the highest version acknowledged (201/204 received) and the highest ever sent. */
    const acked = new Map<string, number>(IDS.map((id) => [id, 0]));
    const sent = new Map<string, number>(IDS.map((id) => [id, 0]));
    const createdIds: string[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      const child = await startServeChild(dataDir, token);
      await verifyAfterRestart(child, dataDir, IDS, { acked, sent, createdIds });
      let killed = false;
      // The kill waits for progress, not for a fixed time: on a busy machine a timed kill can land before the first
      // write is answered, and then the round proves nothing.
      const ackedThisRound = new Map<string, number>();
      let progress = () => {};
      const madeProgress = new Promise<void>((resolve) => {
        progress = () => {
          const total = [...ackedThisRound.values()].reduce((a, b) => a + b, 0);
          if (ackedThisRound.size === IDS.length && total > IDS.length) resolve();
        };
      });
      const headers = { authorization: `Api-Token ${child.token}`, 'content-type': 'application/json' };
      // One writer per id, so each id's versions are totally ordered; one more writer creates with POST.
      const writers = IDS.map(async (id) => {
        while (!killed) {
          const n = (sent.get(id) ?? 0) + 1;
          sent.set(id, n);
          const response = await fetch(`${child.url}/api/config/v1/dashboards/${id}`, { method: 'PUT', headers, body: JSON.stringify(dashboardVersion(id, n)) }).catch(() => undefined);
          if (!response) return;
          expect([201, 204]).toContain(response.status);
          acked.set(id, n);
          ackedThisRound.set(id, (ackedThisRound.get(id) ?? 0) + 1);
          progress();
        }
      });
      const creator = (async () => {
        while (!killed) {
          const response = await fetch(`${child.url}/api/config/v1/dashboards`, { method: 'POST', headers, body: JSON.stringify(dashboardVersion('new', 0)) }).catch(() => undefined);
          const created = (await response?.json().catch(() => undefined)) as { id: string } | undefined;
          if (!created) return;
          createdIds.push(created.id);
        }
      })();
      await madeProgress;
      await new Promise((resolve) => setTimeout(resolve, random() * 340));
      killed = true;
      child.process.kill('SIGKILL');
      await Promise.all([...writers, creator, new Promise((resolve) => child.process.once('exit', resolve))]);
    }
    const last = await startServeChild(dataDir, token);
    await verifyAfterRestart(last, dataDir, IDS, { acked, sent, createdIds });
    last.process.kill('SIGKILL');
    expect([...acked.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(ROUNDS * IDS.length);
  }
});

import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { openEventStore } from '../../src/server/feed/open-event-store.js';
import { tempDirPerTest } from '../helpers/scratch.js';
import { pageOf } from '../helpers/store-page.js';

/** The compiled store (npm test builds first), driven by a child that a test can SIGKILL at any moment. */
const STORE_JS = fileURLToPath(new URL('../../dist/server/feed/open-event-store.js', import.meta.url));
const RECORD_JS = fileURLToPath(new URL('../../dist/server/feed/event-record.js', import.meta.url));
const T0 = 1_700_000_000_000;

/** Appends batches of 25 events numbered on from the store's size, acknowledging each batch once put resolves. */
const CHILD = `
const { openEventStore } = await import(${JSON.stringify(STORE_JS)});
const { encodeEvent } = await import(${JSON.stringify(RECORD_JS)});
const store = await openEventStore({ dir: process.argv[1] });
let next = store.size;
for (;;) {
  const batch = [];
  for (let i = 0; i < 25; i++, next++) {
    const big = (BigInt(next) * 1000003n - 4314211936928920170n).toString();
    const result = encodeEvent({ id: big + '_' + (${T0} + next), startTime: ${T0} + next, eventType: 'CUSTOM_INFO', entityId: 'HOST-' + (next % 7), text: 'x'.repeat(next % 300) });
    batch.push(result.event);
  }
  await store.put(batch);
  process.stdout.write('ack ' + (next - 1) + '\\n');
}
`;

function runUntilKilled(dir: string, afterAcks: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = -1;
    let acks = 0;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        const match = /^ack (\d+)$/.exec(line);
        if (!match) continue;
        acked = Number(match[1]);
        if (++acks === afterAcks) setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`child exited by itself: ${stderr}`))));
  });
}

describe('event store under SIGKILL', () => {
  let dir: string;
  tempDirPerTest('dashcd-events-crash-', (created) => (dir = created));

  it('keeps every acknowledged event and never shows a damaged or half-written one, run after run', async () => {
    for (const [acks, extraMs] of [[3, 0], [10, 7], [5, 23], [20, 2]] as const) {
      const acked = await runUntilKilled(dir, acks, extraMs);
      const warnings: Array<Record<string, unknown>> = [];
      const destination = new Writable({
        write(chunk: Buffer, _encoding, done) {
          warnings.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      });
      const store = await openEventStore({ dir, log: createLogger({ level: 'warn', destination }) });
      expect(store.size).toBeGreaterThanOrEqual(acked + 1);
      const page = await pageOf(store, { filter: { from: T0, to: T0 + 10_000_000 }, watermark: store.size, limit: store.size, countTotal: true });
      expect(page.total).toBe(store.size);
      const starts = page.texts.map((text) => (JSON.parse(text.toString()) as { startTime: number }).startTime - T0).reverse();
      expect(starts).toEqual(Array.from({ length: store.size }, (_, i) => i));
      expect(page.texts.at(-1)?.toString()).toContain('"eventId":-4314211936928920170,');
      expect(warnings.filter((w) => w['msg'] !== 'cut off an incomplete last event line')).toEqual([]);
      await store.close();
    }
  });
});

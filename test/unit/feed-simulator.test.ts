import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { encodeEvent } from '../../src/server/feed/event-record.js';
import { openEventStore, type EventStore } from '../../src/server/feed/event-store.js';
import { EventSimulation, SIMULATOR_SOURCE, startEventSimulator } from '../../src/server/feed/simulator.js';
import { seededRandom } from '../../src/server/feed/synthetic-events.js';
import { tempDirPerTest } from '../helpers/scratch.js';

const T0 = 1_700_000_000_000;
const INTERVAL = 1_000;

/** Time moves only when the test says so; each sleep resolves when time passes its end. */
function manualClock(): Clock & { advance(ms: number): Promise<void> } {
  let now = T0;
  const waiting: Array<{ until: number; resolve: () => void }> = [];
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        waiting.push({ until: now + ms, resolve });
      }),
    async advance(ms) {
      now += ms;
      for (const sleeper of waiting.splice(0)) {
        if (sleeper.until <= now) sleeper.resolve();
        else waiting.push(sleeper);
      }
    },
  };
}

/** Waits (in real time) until `condition` holds: the simulator's loop runs on its own, fsyncs included. */
async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function allEvents(store: EventStore): Promise<Array<Record<string, unknown>>> {
  const page = await store.query({ filter: { from: 0, to: T0 * 2 }, watermark: store.size, limit: 10_000, countTotal: false });
  return page.texts.map((text) => JSON.parse(text.toString('utf8')) as Record<string, unknown>);
}

describe('event simulator', () => {
  let dir: string;
  tempDirPerTest('dashcd-simulator-', (created) => (dir = created));

  it('is deterministic for a seed, and opens problems that later close across entity kinds and types', () => {
    const run = (): string[] => {
      const simulation = new EventSimulation(seededRandom(42), INTERVAL);
      return Array.from({ length: 60 }, (_, i) => simulation.tick(T0 + i * INTERVAL)).flat().map((e) => e.text);
    };
    const texts = run();
    expect(run()).toEqual(texts);
    const events = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    const byId = new Map<string, Array<Record<string, unknown>>>();
    for (const event of events) byId.set(String(event['id']), [...(byId.get(String(event['id'])) ?? []), event]);
    const closedLater = [...byId.values()].filter((versions) => versions[0]?.['eventStatus'] === 'OPEN' && versions[1]?.['eventStatus'] === 'CLOSED');
    expect(closedLater.length).toBeGreaterThan(5);
    for (const [open, closed] of closedLater) expect(Number(closed?.['endTime'])).toBeGreaterThan(Number(open?.['startTime']));
    expect(new Set(events.map((e) => e['eventType'])).size).toBeGreaterThan(6);
    expect(new Set(events.map((e) => String(e['entityId']).split('-')[0]))).toEqual(new Set(['HOST', 'PROCESS_GROUP_INSTANCE', 'SERVICE', 'APPLICATION']));
    expect(events.every((e) => e['source'] === SIMULATOR_SOURCE)).toBe(true);
  });

  it('writes a tick per interval into the store until stopped, and closes leftovers of an earlier run first', async () => {
    const store = await openEventStore({ dir });
    const leftover = encodeEvent({ id: `77_${T0 - 5000}`, startTime: T0 - 5000, eventType: 'CPU_SATURATED', entityId: 'HOST-1', eventStatus: 'OPEN', source: SIMULATOR_SOURCE });
    const foreign = encodeEvent({ id: `78_${T0 - 5000}`, startTime: T0 - 5000, eventType: 'CPU_SATURATED', entityId: 'HOST-1', eventStatus: 'OPEN', source: 'builtin' });
    if (!leftover.ok || !foreign.ok) throw new Error('fixture');
    await store.put([leftover.event, foreign.event]);

    const clock = manualClock();
    const simulator = startEventSimulator({ store, clock, signal: new AbortController().signal, intervalMs: INTERVAL, random: seededRandom(7) });
    await eventually(() => store.size > 2);
    for (let i = 0; i < 5; i++) {
      const before = store.size;
      await clock.advance(INTERVAL);
      await eventually(() => store.size > before);
    }
    await simulator.stop();
    const stopped = store.size;
    await clock.advance(10 * INTERVAL);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.size).toBe(stopped);

    const events = await allEvents(store);
    expect(events.find((e) => e['id'] === `77_${T0 - 5000}`)).toMatchObject({ eventStatus: 'CLOSED', endTime: T0 });
    expect(events.find((e) => e['id'] === `78_${T0 - 5000}`)).toMatchObject({ eventStatus: 'OPEN' });
    await store.close();
  });
});

import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/lib/clock.js';
import { encodeEvent } from '../../../../src/server/feed/event-record.js';
import type { EventStore } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { EventSimulation, SIMULATOR_SOURCE, startEventSimulator } from '../../../../src/server/feed/simulator.js';
import { seededRandom } from '../../../../src/server/feed/synthetic-events.js';
import { startApiServer } from '../../../../src/server/api-server.js';
import { silentLogger } from '../../../../src/lib/logger.js';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../../../../src/schema/ids.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';
import { pageOf } from '../../../helpers/store-page.js';

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

async function allEvents(store: EventStore, to = T0 * 2): Promise<Array<Record<string, unknown>>> {
  const page = await pageOf(store, { filter: { from: 0, to }, watermark: store.size, limit: 10_000, countTotal: false });
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

  it('tags the simulated entities with the environment they are simulated into', () => {
    const texts = new EventSimulation(seededRandom(3), INTERVAL, 12, 'dev').tick(T0).map((e) => e.text);
    const envTags = texts.flatMap((text) => (JSON.parse(text) as { tags: { key: string; value: string }[] }).tags.filter((t) => t.key === 'env').map((t) => t.value));
    expect(envTags.length).toBeGreaterThan(0);
    expect(new Set(envTags)).toEqual(new Set(['dev']));
  });

  it('the embedded API simulates an environment once a session uses it, and never the unused local one', async () => {
    const api = await startApiServer({ dataDir: dir, host: '127.0.0.1', port: 0, log: silentLogger(), simulateEvents: true });
    try {
      await api.session(EnvironmentId.parse('dev'));
      const dev = api.server.environments.get(EnvironmentId.parse('dev'))?.events;
      await eventually(() => (dev?.size ?? 0) > 0);
      const tags = (await allEvents(dev as EventStore, Date.now() + 60_000)).flatMap((e) => (e['tags'] as { key: string; value: string }[]).filter((t) => t.key === 'env').map((t) => t.value));
      expect(new Set(tags)).toEqual(new Set(['dev']));
      expect(api.server.environments.get(DEFAULT_ENVIRONMENT)?.events?.size).toBe(0);
    } finally {
      await api.close();
    }
  });
});


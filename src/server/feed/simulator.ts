import { systemClock, type Clock } from '../../lib/clock.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { encodeEvent, type EncodedEvent } from './event-record.js';
import type { EventStore } from './event-store.js';
import { randomEventId, syntheticEvent, syntheticFleet, type SyntheticEntity } from './synthetic-events.js';

export const SIMULATOR_SOURCE = 'dashcd-simulator';

interface OpenSimulated {
  readonly event: Record<string, unknown>;
  readonly closesAt: number;
}

/**
 * The synthetic stream's state: which simulated problems are open and when each will close. Each tick closes the
 * problems that are due and starts one to three new events (about two thirds problems lasting 2–30 intervals,
 * the rest informational events that close at once), at most one open problem per entity. Deterministic for a
 * given `random` and sequence of tick times.
 */
export class EventSimulation {
  private readonly open = new Map<string, OpenSimulated>();
  private readonly fleet: readonly SyntheticEntity[];

  constructor(
    private readonly random: () => number,
    private readonly intervalMs: number,
    fleetSize = 12,
    environment?: string,
  ) {
    this.fleet = syntheticFleet(fleetSize, environment);
  }

  get openCount(): number {
    return this.open.size;
  }

  tick(now: number): EncodedEvent[] {
    const out: Array<Record<string, unknown>> = [];
    for (const [entityId, entry] of this.open) {
      if (entry.closesAt > now) continue;
      this.open.delete(entityId);
      out.push({ ...entry.event, endTime: entry.closesAt, eventStatus: 'CLOSED' });
    }
    const count = 1 + Math.floor(this.random() * 3);
    for (let i = 0; i < count; i++) out.push(this.startOne(now));
    return out.map(encodeOrThrow);
  }

  private startOne(now: number): Record<string, unknown> {
    const entity = this.fleet[Math.floor(this.random() * this.fleet.length)] as SyntheticEntity;
    const problem = !this.open.has(entity.entityId) && this.random() < 0.65;
    const eventId = randomEventId(this.random);
    const event = syntheticEvent({ entity, eventId, startTime: now, endTime: problem ? undefined : now, problem, random: this.random, source: SIMULATOR_SOURCE });
    if (problem) {
      const closesAt = now + Math.floor((2 + this.random() * 28) * this.intervalMs);
      this.open.set(entity.entityId, { event, closesAt });
    }
    return event;
  }
}

function encodeOrThrow(event: Record<string, unknown>): EncodedEvent {
  const result = encodeEvent(event);
  if (!result.ok) throw new Error(`simulated event failed its schema: ${result.problems.join('; ')}`);
  return result.event;
}

export interface SimulatorOptions {
  store: EventStore;
  clock?: Clock;
  log?: Logger;
  signal: AbortSignal;
  intervalMs?: number;
  random?: () => number;
  fleetSize?: number;
  /** The environment simulated: its entities' `env` tag. Absent: a mix of prod and staging. */
  environment?: string;
}

/**
 * `serve --simulate-events`: writes a tick of synthetic events every `intervalMs` until `signal` aborts or stop()
 * is called. Simulated problems left open by an earlier run (its state died with it) are closed first. A failed tick
 * is logged and the loop goes on.
 */
export function startEventSimulator(options: SimulatorOptions): { stop(): Promise<void> } {
  const { store, clock = systemClock, log = silentLogger(), intervalMs = 5_000, random = Math.random } = options;
  const controller = new AbortController();
  const signal = AbortSignal.any([options.signal, controller.signal]);
  const simulation = new EventSimulation(random, intervalMs, options.fleetSize, options.environment);
  log.info('simulating events');
  const loop = (async () => {
    await closeLeftovers(store, clock.now(), log).catch((error: unknown) => {
      log.warn({ err: error }, 'could not close simulated events left open by an earlier run');
    });
    while (!signal.aborted) {
      try {
        const events = simulation.tick(clock.now());
        await store.put(events);
        log.debug({ events: events.length, open: simulation.openCount }, 'simulated events');
      } catch (error) {
        log.warn({ err: error }, 'simulator tick failed');
      }
      await clock.sleep(intervalMs, signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await loop;
    },
  };
}

async function closeLeftovers(store: EventStore, now: number, log: Logger): Promise<void> {
  const leftovers: EncodedEvent[] = [];
  for (const text of await store.openEvents()) {
    const event = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
    if (event['source'] !== SIMULATOR_SOURCE) continue;
    leftovers.push(encodeOrThrow({ ...event, endTime: Math.max(now, Number(event['startTime'])), eventStatus: 'CLOSED' }));
  }
  await store.put(leftovers);
  if (leftovers.length > 0) log.info({ closed: leftovers.length }, 'closed simulated events left open by an earlier run');
}

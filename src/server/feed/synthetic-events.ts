import type { TagInfo } from '../../schema/events.js';

/** Seeded uniform random numbers in [0, 1) (mulberry32): the same seed gives the same stream everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random int64 as canonical digits, drawn from `random` (so ids are reproducible from a seed). */
export function randomEventId(random: () => number): string {
  const hi = BigInt(Math.floor(random() * 0x100000000));
  const lo = BigInt(Math.floor(random() * 0x100000000));
  return BigInt.asIntN(64, (hi << 32n) | lo).toString();
}

export type EntityKind = 'HOST' | 'PROCESS_GROUP_INSTANCE' | 'SERVICE' | 'APPLICATION';

export interface SyntheticEntity {
  readonly entityId: string;
  readonly entityName: string;
  readonly kind: EntityKind;
  readonly tags: readonly TagInfo[];
}

const KIND_PROBLEMS: Readonly<Record<EntityKind, readonly string[]>> = {
  HOST: ['CPU_SATURATED', 'MEMORY_SATURATED', 'LOW_DISK_SPACE', 'SLOW_DISK', 'HOST_CONNECTION_LOST'],
  PROCESS_GROUP_INSTANCE: ['PROCESS_CRASHED', 'HIGH_GC_ACTIVITY', 'PROCESS_UNAVAILABLE', 'MEMORY_RESOURCES_EXHAUSTED'],
  SERVICE: ['SERVICE_RESPONSE_TIME_DEGRADED', 'FAILURE_RATE_INCREASED', 'UNEXPECTED_LOW_LOAD', 'HIGH_LATENCY'],
  APPLICATION: ['JAVASCRIPT_ERROR_RATE_INCREASED', 'USER_ACTION_DURATION_DEGRADATION', 'UNEXPECTED_HIGH_LOAD'],
};
const KIND_INFO: Readonly<Record<EntityKind, readonly string[]>> = {
  HOST: ['CUSTOM_CONFIGURATION', 'CUSTOM_INFO', 'HOST_MAINTENANCE'],
  PROCESS_GROUP_INSTANCE: ['CUSTOM_DEPLOYMENT', 'PROCESS_RESTART'],
  SERVICE: ['CUSTOM_DEPLOYMENT', 'CUSTOM_ANNOTATION'],
  APPLICATION: ['CUSTOM_DEPLOYMENT', 'CUSTOM_INFO'],
};
const SEVERITY: Readonly<Record<string, string>> = {
  CPU_SATURATED: 'RESOURCE_CONTENTION', MEMORY_SATURATED: 'RESOURCE_CONTENTION', LOW_DISK_SPACE: 'RESOURCE_CONTENTION',
  SLOW_DISK: 'PERFORMANCE', HOST_CONNECTION_LOST: 'AVAILABILITY', PROCESS_CRASHED: 'ERROR', HIGH_GC_ACTIVITY: 'PERFORMANCE',
  PROCESS_UNAVAILABLE: 'AVAILABILITY', MEMORY_RESOURCES_EXHAUSTED: 'RESOURCE_CONTENTION',
  SERVICE_RESPONSE_TIME_DEGRADED: 'PERFORMANCE', FAILURE_RATE_INCREASED: 'ERROR', UNEXPECTED_LOW_LOAD: 'PERFORMANCE',
  HIGH_LATENCY: 'PERFORMANCE', JAVASCRIPT_ERROR_RATE_INCREASED: 'ERROR', USER_ACTION_DURATION_DEGRADATION: 'PERFORMANCE',
  UNEXPECTED_HIGH_LOAD: 'PERFORMANCE',
};
const IMPACT: Readonly<Record<EntityKind, string>> = {
  HOST: 'INFRASTRUCTURE', PROCESS_GROUP_INSTANCE: 'INFRASTRUCTURE', SERVICE: 'SERVICE', APPLICATION: 'APPLICATION',
};
const SERVICES = ['checkout', 'payments', 'catalog', 'search', 'auth', 'orders', 'inventory', 'shipping'];
const ENVS = ['prod', 'staging'];

/**
 * A fleet of `size` hosts with their processes, services and a few applications, tagged like a real estate. With
 * `environment` (the one its events are simulated into) every entity is tagged `env:<environment>`, so dev's events
 * say dev; without, a mix of prod and staging.
 */
export function syntheticFleet(size = 12, environment?: string): SyntheticEntity[] {
  const entities: SyntheticEntity[] = [];
  const hex = (n: number, kind: number): string => ((kind << 24) + n).toString(16).toUpperCase().padStart(16, '0');
  for (let n = 0; n < size; n++) {
    const service = SERVICES[n % SERVICES.length] ?? 'app';
    const env = environment ?? ENVS[n % 5 === 4 ? 1 : 0] ?? 'prod';
    const tags: TagInfo[] = [
      { context: 'CONTEXTLESS', key: 'env', value: env },
      { context: 'CONTEXTLESS', key: 'team', value: service },
      { context: 'AWS', key: 'region', value: n % 2 === 0 ? 'eu-west-1' : 'us-east-1' },
    ];
    entities.push({ entityId: `HOST-${hex(n, 1)}`, entityName: `ip-10-0-${n >> 8}-${n & 255}.${env}.internal`, kind: 'HOST', tags });
    entities.push({ entityId: `PROCESS_GROUP_INSTANCE-${hex(n, 2)}`, entityName: `${service}-worker-${n}`, kind: 'PROCESS_GROUP_INSTANCE', tags });
    if (n % 2 === 0) entities.push({ entityId: `SERVICE-${hex(n, 3)}`, entityName: `${service}-api`, kind: 'SERVICE', tags });
    if (n % 6 === 0) entities.push({ entityId: `APPLICATION-${hex(n, 4)}`, entityName: `${service}-web`, kind: 'APPLICATION', tags: tags.slice(0, 2) });
  }
  return entities;
}

export interface SyntheticEventSpec {
  readonly entity: SyntheticEntity;
  readonly eventId: string;
  readonly startTime: number;
  /** Undefined: the event is open. */
  readonly endTime: number | undefined;
  readonly problem: boolean;
  readonly random: () => number;
  readonly source: string;
}

/** Picks an event type an entity of this kind really raises. */
export function pickEventType(kind: EntityKind, problem: boolean, random: () => number): string {
  const choices = (problem ? KIND_PROBLEMS : KIND_INFO)[kind];
  return choices[Math.floor(random() * choices.length)] ?? 'CUSTOM_INFO';
}

/** One EventRestEntry-shaped object with the members real events carry. */
export function syntheticEvent(spec: SyntheticEventSpec): Record<string, unknown> {
  const { entity, random } = spec;
  const eventType = pickEventType(entity.kind, spec.problem, random);
  const event: Record<string, unknown> = {
    id: `${spec.eventId}_${spec.startTime}`,
    startTime: spec.startTime,
    ...(spec.endTime === undefined ? {} : { endTime: spec.endTime }),
    eventType,
    entityId: entity.entityId,
    entityName: entity.entityName,
    ...(SEVERITY[eventType] ? { severityLevel: SEVERITY[eventType] } : {}),
    impactLevel: IMPACT[entity.kind],
    eventStatus: spec.endTime === undefined ? 'OPEN' : 'CLOSED',
    tags: entity.tags,
    source: spec.source,
  };
  if (eventType === 'CUSTOM_DEPLOYMENT') {
    event['deploymentName'] = `deploy ${entity.entityName}`;
    event['deploymentVersion'] = `1.${Math.floor(random() * 40)}.${Math.floor(random() * 10)}`;
    event['deploymentProject'] = entity.entityName.split('-')[0];
  } else if (!spec.problem) {
    event['description'] = `${eventType.toLowerCase().replace(/_/g, ' ')} on ${entity.entityName}`;
  }
  return event;
}

export interface GenerateOptions {
  readonly count: number;
  readonly seed?: number;
  /** Start time of the oldest event. */
  readonly since: number;
  /** Average gap between consecutive starts. */
  readonly meanGapMs?: number;
  readonly fleetSize?: number;
  readonly source?: string;
}

/**
 * A deterministic history of `count` events with ascending start times (for tests and benchmarks): about a third
 * informational and closed at once, the rest problems lasting minutes to hours; the newest few problems are open.
 */
export function* generateEvents(options: GenerateOptions): Generator<Record<string, unknown>> {
  const random = seededRandom(options.seed ?? 1);
  const fleet = syntheticFleet(options.fleetSize ?? 200);
  const gap = options.meanGapMs ?? 10_000;
  let time = options.since;
  for (let i = 0; i < options.count; i++) {
    time += Math.floor(random() * 2 * gap);
    const problem = random() < 0.65;
    const open = problem && options.count - i <= 20;
    const duration = problem ? Math.floor(60_000 + random() * random() * 6 * 3_600_000) : 0;
    const entity = fleet[Math.floor(random() * fleet.length)] as SyntheticEntity;
    yield syntheticEvent({
      entity,
      eventId: randomEventId(random),
      startTime: time,
      endTime: open ? undefined : time + duration,
      problem,
      random,
      source: options.source ?? 'builtin',
    });
  }
}

import { z } from 'zod';

/** The event types the feed can be filtered by, exactly as the specification lists them. */
export const EVENT_TYPES = [
  'APPLICATION_JS_FRAMEWORK_DETECTED', 'AVAILABILITY_EVENT', 'CONNECTION_LOST', 'CPU_SATURATED', 'CUSTOM_ALERT',
  'CUSTOM_ANNOTATION', 'CUSTOM_APP_CRASH_RATE_INCREASED', 'CUSTOM_CONFIGURATION', 'CUSTOM_DEPLOYMENT', 'CUSTOM_INFO',
  'DATABASE_CONNECTION_FAILURE', 'DOCKER_MEMORY_SATURATION', 'EBS_VOLUME_HIGH_LATENCY',
  'ELASTIC_LOAD_BALANCER_HIGH_BACKEND_FAILURE_RATE', 'ELASTIC_LOAD_BALANCER_HIGH_FAILURE_RATE',
  'ELASTIC_LOAD_BALANCER_HIGH_UNHEALTHY_HOST_RATE', 'ERROR_EVENT', 'ESXI_START', 'FAILURE_RATE_INCREASED',
  'HIGH_CONNECTIVITY_FAILURES', 'HIGH_DROPPED_PACKETS_RATE', 'HIGH_GC_ACTIVITY', 'HIGH_LATENCY',
  'HIGH_NETWORK_ERROR_RATE', 'HIGH_NETWORK_LOSS_RATE', 'HIGH_NETWORK_UTILIZATION', 'HOST_CONNECTION_FAILED',
  'HOST_CONNECTION_LOST', 'HOST_DATASTORE_LOW_DISK_SPACE', 'HOST_DISK_LOW_INODES', 'HOST_GRACEFULLY_SHUTDOWN',
  'HOST_LOG_AVAILABILITY', 'HOST_LOG_ERROR', 'HOST_LOG_MATCHED', 'HOST_LOG_PERFORMANCE', 'HOST_MAINTENANCE',
  'HOST_NO_CONNECTION', 'HOST_OF_SERVICE_UNAVAILABLE', 'HOST_SHUTDOWN', 'HOST_TIMEOUT', 'HTTP_CHECK_GLOBAL_OUTAGE',
  'HTTP_CHECK_LOCAL_OUTAGE', 'HTTP_CHECK_TEST_LOCATION_SLOWDOWN', 'INSUFFICIENT_DISK_QUEUE_DEPTH',
  'JAVASCRIPT_ERROR_RATE_INCREASED', 'LAMBDA_FUNCTION_HIGH_ERROR_RATE', 'LOG_AVAILABILITY', 'LOG_ERROR',
  'LOG_MATCHED', 'LOG_PERFORMANCE', 'LOW_DISK_SPACE', 'LOW_STORAGE_SPACE', 'MARKED_FOR_TERMINATION',
  'MEMORY_RESOURCES_EXHAUSTED', 'MEMORY_SATURATED', 'MOBILE_APP_CRASH_RATE_INCREASED', 'MONITORING_UNAVAILABLE',
  'OPENSTACK_KEYSTONE_SLOW', 'OPENSTACK_KEYSTONE_UNHEALTHY', 'OSI_DOCKER_DEVICEMAPPER_LOW_DATA_SPACE',
  'OSI_DOCKER_DEVICEMAPPER_LOW_METADATA_SPACE', 'OVERLOADED_STORAGE', 'PERFORMANCE_EVENT',
  'PGI_HAPROXY_QUEUED_REQUESTS_HIGH', 'PGI_HAPROXY_SESSION_USAGE_HIGH', 'PGI_MYSQL_SLOW_QUERIES_RATE_HIGH',
  'PGI_OF_SERVICE_UNAVAILABLE', 'PGI_RMQ_HIGH_FILE_DESC_USAGE', 'PGI_RMQ_HIGH_MEM_USAGE', 'PGI_RMQ_HIGH_PROCESS_USAGE',
  'PGI_RMQ_HIGH_SOCKETS_USAGE', 'PGI_RMQ_LOW_DISK_SPACE', 'PROCESS_CRASHED', 'PROCESS_CUSTOM_AVAILABILITY',
  'PROCESS_CUSTOM_ERROR', 'PROCESS_CUSTOM_PERFORMANCE', 'PROCESS_GROUP_LOW_INSTANCE_COUNT', 'PROCESS_LOG_AVAILABILITY',
  'PROCESS_LOG_ERROR', 'PROCESS_LOG_PERFORMANCE', 'PROCESS_RESTART', 'PROCESS_UNAVAILABLE',
  'RDS_OF_SERVICE_UNAVAILABLE', 'RDS_RESTART_SEQUENCE', 'RESOURCE_CONTENTION', 'SERVICE_RESPONSE_TIME_DEGRADED',
  'SLOW_DISK', 'SYNTHETIC_AVAILABILITY', 'SYNTHETIC_SLOWDOWN', 'THREADS_RESOURCES_EXHAUSTED', 'UNEXPECTED_HIGH_LOAD',
  'UNEXPECTED_LOW_LOAD', 'USER_ACTION_DURATION_DEGRADATION', 'VIRTUAL_MACHINE_SHUTDOWN', 'WEB_CHECK_GLOBAL_OUTAGE',
  'WEB_CHECK_LOCAL_OUTAGE',
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

/** Push-event types that only inform: they close at once (docs/real-service-behaviour.md §4). */
export const INFO_EVENT_TYPES = [
  'CUSTOM_ANNOTATION', 'CUSTOM_CONFIGURATION', 'CUSTOM_DEPLOYMENT', 'CUSTOM_INFO', 'MARKED_FOR_TERMINATION',
] as const;
/** Push-event types that open a problem: they stay OPEN until their timeout runs out without a refresh. */
export const PROBLEM_EVENT_TYPES = [
  'AVAILABILITY_EVENT', 'CUSTOM_ALERT', 'ERROR_EVENT', 'PERFORMANCE_EVENT', 'RESOURCE_CONTENTION',
] as const;
export const PushEventType = z.enum([...INFO_EVENT_TYPES, ...PROBLEM_EVENT_TYPES]);
export type PushEventType = z.infer<typeof PushEventType>;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** `relativeTime` values and the window each one means, ending now. */
export const RELATIVE_TIMES = {
  min: MINUTE_MS,
  '5mins': 5 * MINUTE_MS,
  '10mins': 10 * MINUTE_MS,
  '15mins': 15 * MINUTE_MS,
  '30mins': 30 * MINUTE_MS,
  hour: 60 * MINUTE_MS,
  '2hours': 120 * MINUTE_MS,
  '6hours': 360 * MINUTE_MS,
  day: DAY_MS,
  '3days': 3 * DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
} as const;
export type RelativeTime = keyof typeof RELATIVE_TIMES;

export const EVENTS_PAGE_SIZE = 150;
export const DEFAULT_EVENTS_WINDOW_MS = 30 * DAY_MS;
/** "The timeframe must not exceed 2 years": a longer backfill is split into windows of at most this length. */
export const MAX_EVENTS_TIMEFRAME_MS = 2 * 365 * DAY_MS;
/** Problem-opening push events: default and maximum `timeoutMinutes`. */
export const DEFAULT_EVENT_TIMEOUT_MINUTES = 15;
export const MAX_EVENT_TIMEOUT_MINUTES = 120;
/** How far in the past a pushed event may start. */
export const INFO_EVENT_MAX_AGE_MS = 30 * DAY_MS;
export const PROBLEM_EVENT_MAX_AGE_MS = 60 * MINUTE_MS;

/** Canonical signed 64-bit decimal: no leading zeros, no `-0`. Range is checked where it is parsed (int64.ts). */
export const EVENT_ID_DIGITS = /^(?:0|-?[1-9][0-9]{0,18})$/;
/** `id` = `<eventId>_<startTime>`. */
export const ENCODED_EVENT_ID = /^(0|-?[1-9][0-9]{0,18})_(0|[1-9][0-9]{0,15})$/;

const TAG_CONTEXTS = [
  'AWS', 'AWS_GENERIC', 'AZURE', 'CLOUD_FOUNDRY', 'CONTEXTLESS', 'ENVIRONMENT', 'GOOGLE_CLOUD', 'KUBERNETES',
] as const;

export const TagInfo = z.looseObject({
  context: z.enum(TAG_CONTEXTS).or(z.string()),
  key: z.string().min(1).max(2000),
  value: z.string().max(2000).optional(),
});
export type TagInfo = z.infer<typeof TagInfo>;

const epochMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * An int64 as JSON.parse leaves it: a JS number, inexact beyond 2^53 (so no `.int()`, which zod limits to safe
 * integers). Exact code never reads it: the digits are in `id` (see server/feed/int64.ts).
 */
const lossyInt64 = z.number();

/**
 * One event of the feed. Loose: "an actual event has a set of metadata that varies depending on the event type",
 * and real payloads carry undeclared members (`source`).
 */
export const EventRestEntry = z.looseObject({
  id: z.string().regex(ENCODED_EVENT_ID, 'must be <eventId>_<startTime>'),
  eventId: lossyInt64.or(z.string()).optional(),
  startTime: epochMs,
  endTime: epochMs.nullish(),
  entityId: z.string().optional(),
  entityName: z.string().optional(),
  severityLevel: z.string().optional(),
  impactLevel: z.string().optional(),
  eventType: z.string().min(1),
  eventStatus: z.enum(['OPEN', 'CLOSED']).optional(),
  tags: z.array(TagInfo).optional(),
});
export type EventRestEntry = z.infer<typeof EventRestEntry>;

export const EventQueryResult = z.looseObject({
  events: z.array(EventRestEntry),
  totalEventCount: z.number().int(),
  from: z.number().int(),
  to: z.number().int(),
  nextCursor: z.string().nullish(),
  nextEventId: lossyInt64.nullish(),
  nextEventStartTms: z.number().int().nullish(),
});
export type EventQueryResult = z.infer<typeof EventQueryResult>;

export const TagMatchRule = z.object({
  meTypes: z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an entity type such as HOST')).min(1),
  tags: z.array(TagInfo).min(1),
});
export type TagMatchRule = z.infer<typeof TagMatchRule>;

export const PushEventAttachRules = z
  .object({
    // Each entity gets its own copy of the event: a thousand is room for any real push, not for a flood.
    entityIds: z.array(z.string().min(1).max(500)).max(1000, 'At most 1000 entity ids per push; push the event again for the others.').optional(),
    tagRule: z.array(TagMatchRule).optional(),
  })
  .refine((rules) => (rules.entityIds?.length ?? 0) + (rules.tagRule?.length ?? 0) > 0, {
    message: 'At least one entity ID or tag is required.',
  });

const text = z.string().max(10_000);

/** The body of `POST /api/v1/events`. Strict about the fields it knows; unknown members are ignored. */
export const EventCreation = z.object({
  eventType: PushEventType,
  attachRules: PushEventAttachRules,
  source: z.string().min(1).max(2000),
  start: epochMs.optional(),
  end: epochMs.optional(),
  timeoutMinutes: z.number().int().min(1).max(MAX_EVENT_TIMEOUT_MINUTES).optional(),
  title: text.optional(),
  description: text.optional(),
  customProperties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  annotationType: text.optional(),
  annotationDescription: text.optional(),
  deploymentName: text.optional(),
  deploymentVersion: text.optional(),
  deploymentProject: text.optional(),
  ciBackLink: text.optional(),
  remediationAction: text.optional(),
  original: text.optional(),
  changed: text.optional(),
  configuration: text.optional(),
  timeseriesIds: z.array(z.string()).optional(),
  allowDavisMerge: z.boolean().optional(),
});
export type EventCreation = z.infer<typeof EventCreation>;

/**
 * The push answer. `storedEventIds` are int64 on the wire; as JS numbers they lose digits, so exact readers use
 * `storedIds` (the server writes the ids digit for digit).
 */
export const EventStoreResult = z.looseObject({
  storedEventIds: z.array(lossyInt64),
  storedIds: z.array(z.string()),
  storedCorrelationIds: z.array(z.string()),
});
export type EventStoreResult = z.infer<typeof EventStoreResult>;

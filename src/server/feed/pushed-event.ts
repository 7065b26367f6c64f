import type { EventCreation } from '../../schema/events.js';
import type { KnownEntity } from './entity-resolver.js';

/** Push-body members copied onto the stored event, in this order. */
const COPIED = [
  'source', 'title', 'description', 'annotationType', 'annotationDescription', 'deploymentName', 'deploymentVersion',
  'deploymentProject', 'ciBackLink', 'remediationAction', 'configuration', 'original', 'changed', 'customProperties',
  'timeseriesIds', 'allowDavisMerge',
] as const;

const SEVERITY: Readonly<Record<string, string>> = {
  AVAILABILITY_EVENT: 'AVAILABILITY',
  CUSTOM_ALERT: 'CUSTOM_ALERT',
  ERROR_EVENT: 'ERROR',
  PERFORMANCE_EVENT: 'PERFORMANCE',
  RESOURCE_CONTENTION: 'RESOURCE_CONTENTION',
};

export interface PushedEventIdentity {
  readonly eventId: string;
  readonly start: number;
  /** Undefined: the event is stored OPEN. */
  readonly end: number | undefined;
  readonly correlationId?: string;
}

/** The EventRestEntry a push stores for one entity. */
export function pushedEvent(creation: EventCreation, entity: KnownEntity, identity: PushedEventIdentity): Record<string, unknown> {
  const event: Record<string, unknown> = {
    id: `${identity.eventId}_${identity.start}`,
    startTime: identity.start,
    ...(identity.end === undefined ? {} : { endTime: identity.end }),
    eventType: creation.eventType,
    entityId: entity.entityId,
    entityName: entity.entityName,
    ...(SEVERITY[creation.eventType] ? { severityLevel: SEVERITY[creation.eventType] } : {}),
    impactLevel: impactOf(entity.entityId),
    eventStatus: identity.end === undefined ? 'OPEN' : 'CLOSED',
    tags: entity.tags,
  };
  for (const key of COPIED) if (creation[key] !== undefined) event[key] = creation[key];
  if (identity.correlationId !== undefined) event['correlationId'] = identity.correlationId;
  return event;
}

/** What the entity's type says is affected (the real service's impactLevel values). */
export function impactOf(entityId: string): string {
  const type = entityId.slice(0, Math.max(0, entityId.lastIndexOf('-')));
  if (type.includes('APPLICATION')) return 'APPLICATION';
  if (type.startsWith('SERVICE')) return 'SERVICE';
  if (type === 'ENVIRONMENT' || type === '') return 'ENVIRONMENT';
  return 'INFRASTRUCTURE';
}

import type { TagInfo, TagMatchRule } from '../../schema/events.js';
import type { EntitySighting, EventStore } from './event-store.js';

/** What a pushed event learns about its entity from the events already stored for it. */
export interface KnownEntity {
  readonly entityId: string;
  readonly entityName: string;
  readonly tags: readonly TagInfo[];
}

/** As in the real service: tag rules only consider entities seen in the last 24 hours. */
export const TAG_RULE_HORIZON_MS = 24 * 60 * 60 * 1000;

/**
 * The entity's name and tags from its newest stored event; an entity never seen keeps its id as its name and has
 * no tags (the embedded server has no topology, so any entity id is accepted).
 */
export async function describeEntity(store: EventStore, entityId: string): Promise<KnownEntity> {
  const sighting = await store.newestEventOf(entityId);
  return sighting ? fromSighting(sighting) : { entityId, entityName: entityId, tags: [] };
}

function fromSighting({ entityId, text }: EntitySighting): KnownEntity {
  const event = JSON.parse(text.toString('utf8')) as { entityName?: unknown; tags?: unknown };
  return {
    entityId,
    entityName: typeof event.entityName === 'string' ? event.entityName : entityId,
    tags: Array.isArray(event.tags) ? (event.tags as TagInfo[]) : [],
  };
}

/**
 * Resolves `tagRule` against the entities this store has seen: an entity matches a rule when its type (the id up to
 * the last `-`, e.g. `HOST`) is one of `meTypes` and it carries every tag of the rule (a rule tag without a value
 * matches any value). Only entities with an event that started, ended or was still open in the last 24 hours count.
 * The result is sorted by entity id so pushes are deterministic.
 */
export async function matchTagRules(store: EventStore, rules: readonly TagMatchRule[], now: number): Promise<KnownEntity[]> {
  const matches: KnownEntity[] = [];
  for (const entityId of store.entityIds().sort()) {
    const type = entityId.slice(0, Math.max(0, entityId.lastIndexOf('-')));
    if (!rules.some((rule) => rule.meTypes.includes(type))) continue;
    const sighting = await store.newestEventOf(entityId);
    if (!sighting || !seenSince(sighting, now - TAG_RULE_HORIZON_MS)) continue;
    const entity = fromSighting(sighting);
    if (rules.some((rule) => rule.meTypes.includes(type) && rule.tags.every((tag) => hasTag(entity.tags, tag)))) {
      matches.push(entity);
    }
  }
  return matches;
}

function seenSince(sighting: { startTime: number; endTime: number | undefined }, horizon: number): boolean {
  return sighting.endTime === undefined || sighting.endTime >= horizon || sighting.startTime >= horizon;
}

function hasTag(tags: readonly TagInfo[], wanted: TagInfo): boolean {
  return tags.some(
    (tag) => tag.context === wanted.context && tag.key === wanted.key && (wanted.value === undefined || tag.value === wanted.value),
  );
}

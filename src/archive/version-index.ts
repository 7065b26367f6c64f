import type { ArchivedEventView } from './archived-event.js';

/**
 * The event versions one partition holds: id → the `status|endTime` of each version. Same identity as
 * `versionKey`, kept by id so a page costs one lookup per event on the id string (whose hash the open-set update
 * then reuses) instead of building and hashing a longer key; most ids have one version, stored as a bare string.
 */
export class VersionIndex {
  private readonly byId = new Map<string, string | string[]>();

  /** Adds the event's version; false when the partition already holds it. */
  add(event: ArchivedEventView): boolean {
    const version = `${event.eventStatus ?? ''}|${event.endTime ?? ''}`;
    const known = this.byId.get(event.id);
    if (known === undefined) this.byId.set(event.id, version);
    else if (typeof known === 'string') {
      if (known === version) return false;
      this.byId.set(event.id, [known, version]);
    } else {
      if (known.includes(version)) return false;
      known.push(version);
    }
    return true;
  }
}

import { detachedText } from '../lib/detached.js';
import type { ArchivedEventView } from './archived-event.js';

/** A version as stored: a number for the common shapes (see versionCode), else `status|endTime` text. */
type Version = number | string;

/** The statuses the feed documents, numbered; an absent status and an empty one are the same version, as in versionKey. */
const STATUS_CODES: ReadonlyMap<string | undefined, number> = new Map([
  [undefined, 0],
  ['', 0],
  ['OPEN', 1],
  ['CLOSED', 2],
]);

/** End times up to this (year ~37,000) fit, times four plus a status code, within Number's exact integers. */
const MAX_CODED_END_TIME = 2 ** 50;

/**
 * The version (`status` and `endTime`) as one number when the status is a documented one and the end time a
 * millisecond instant (or absent), which is every event the feed is documented to send; any other pair stays
 * `status|endTime` text. Same version, same value, and a number never equals a text, so equality on the result is
 * equality of versions. A number costs neither formatting the end time nor a string per version: a pull of a million
 * events spent more time building those strings than looking them up.
 */
export function versionCode(eventStatus: string | undefined, endTime: number | undefined): Version {
  const statusCode = STATUS_CODES.get(eventStatus);
  if (statusCode !== undefined) {
    if (endTime === undefined) return statusCode;
    if (Number.isSafeInteger(endTime) && endTime >= 0 && endTime <= MAX_CODED_END_TIME) return (endTime + 1) * 4 + statusCode;
  }
  return `${eventStatus ?? ''}|${endTime ?? ''}`;
}

/**
 * The event versions one partition holds: id → the version code of each. Same identity as `versionKey`, kept by id
 * so a page costs one lookup per event on the id string instead of building and hashing a longer key; most ids have
 * one version, stored bare.
 */
export class VersionIndex {
  private readonly byId = new Map<string, Version | Version[]>();

  /** Adds the event's version; false when the partition already holds it. */
  add(event: ArchivedEventView): boolean {
    const version = versionCode(event.eventStatus, event.endTime);
    const known = this.byId.get(event.id);
    // A copy: the id is cut from its page's text, which the key would keep alive while the day stays loaded.
    if (known === undefined) this.byId.set(detachedText(event.id), version);
    else if (!Array.isArray(known)) {
      if (known === version) return false;
      this.byId.set(event.id, [known, version]);
    } else {
      if (known.includes(version)) return false;
      known.push(version);
    }
    return true;
  }
}

import { encodeEvent, type EncodedEvent } from './event-record.js';
import type { EventStore } from './event-store.js';

/**
 * Closes every pushed problem event whose timeout has run out: a new version with `endTime` = the deadline and
 * `eventStatus: CLOSED`. Called before each list and push request, which is enough for the feed to show them
 * closed on time (nobody can observe the store but through a request). Returns how many events were closed.
 */
export async function closeDueProblems(store: EventStore, now: number): Promise<number> {
  if (!store.problems.hasDue(now)) return 0;
  return store.problems.exclusive(async () => {
    const due = store.problems.due(now);
    const closed: EncodedEvent[] = [];
    for (const entry of due) {
      const text = await store.get(entry.id);
      // Missing: the crash window between the timeout entry and its event. Not OPEN: something replaced it already.
      if (!text) continue;
      const event = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
      if (event['eventStatus'] !== 'OPEN') continue;
      const result = encodeEvent({ ...event, endTime: Math.max(entry.deadline, Number(event['startTime'])), eventStatus: 'CLOSED' });
      if (result.ok) closed.push(result.event);
    }
    await store.put(closed);
    await store.problems.update([], due.map((entry) => entry.key));
    return closed.length;
  });
}

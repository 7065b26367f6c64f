import type { EventStore, PageEnds } from '../../src/server/feed/event-store.js';
import type { PageRequest } from '../../src/server/feed/index-query.js';

/** A page's ends and its texts, each its own Buffer. */
export interface StorePage extends PageEnds {
  readonly texts: Buffer[];
}

const NEWLINE = 0x0a;

/**
 * A page read the way the server reads it (queryBody), its texts taken apart again: one newline between texts, which
 * no event text holds.
 */
export async function pageOf(store: EventStore, request: PageRequest): Promise<StorePage> {
  let ends: PageEnds | undefined;
  const { bytes: body } = await store.queryBody(request, (pageEnds) => {
    ends = pageEnds;
    return { head: Buffer.alloc(0), separator: NEWLINE, tail: Buffer.alloc(0) };
  });
  const texts: Buffer[] = [];
  for (let from = 0; from < body.length; ) {
    const end = body.indexOf(NEWLINE, from);
    const to = end === -1 ? body.length : end;
    texts.push(Buffer.from(body.subarray(from, to)));
    from = to + 1;
  }
  return { ...(ends as PageEnds), texts };
}

import type { IndexPage, PageRequest } from './index-query.js';

/**
 * The index's answers to first pages lately asked, by the whole query (window, filters, watermark, size), for as long
 * as the store holds the same events: a poller asking the same page again is answered without walking the posting
 * lists again (a first page by entity and type walked the entity's list twice, once to fill the page and once to
 * count the total: half of such a page's work). Any write to the store is a new `generation`, and every answer kept
 * from before it misses. Oldest out first.
 */
export class FirstPageMemo {
  private readonly pages = new Map<string, IndexPage>();
  private generation = 0;

  constructor(private readonly capacity: number) {}

  /** The kept answer to `request` if the store is still at `generation`; continuation pages are never kept. */
  get(request: PageRequest, generation: number): IndexPage | undefined {
    if (generation !== this.generation || request.after !== undefined) return undefined;
    const key = keyOf(request);
    const page = this.pages.get(key);
    if (page === undefined) return undefined;
    this.pages.delete(key);
    this.pages.set(key, page);
    return page;
  }

  set(request: PageRequest, generation: number, page: IndexPage): void {
    if (request.after !== undefined) return;
    if (generation !== this.generation) {
      this.pages.clear();
      this.generation = generation;
    }
    const key = keyOf(request);
    this.pages.delete(key);
    if (this.pages.size >= this.capacity) this.pages.delete(this.pages.keys().next().value as string);
    this.pages.set(key, page);
  }
}

/** Every field of a first page's request, unambiguously (an entity id may hold any character). */
function keyOf({ filter, watermark, limit, countTotal }: PageRequest): string {
  return JSON.stringify([filter.from, filter.to, filter.eventType ?? null, filter.entityId ?? null, watermark, limit, countTotal]);
}

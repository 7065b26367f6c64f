import type { ConsoleEvent, EventFilter } from './console-data.js';

export function eventFilterOf(query: URLSearchParams): EventFilter {
  const value = (name: string): string | undefined => {
    const v = query.get(name)?.trim();
    return v ? v : undefined;
  };
  return { type: value('type'), status: value('status'), text: value('q') };
}

/** Whether an event passes the filter. The sources apply it as they read, so a page's cap counts only what it shows. */
export function eventMatches(event: ConsoleEvent, filter: EventFilter): boolean {
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.status !== undefined && event.status !== filter.status) return false;
  const text = filter.text?.toLowerCase();
  return text === undefined || event.id.toLowerCase().includes(text) || (event.entity ?? '').toLowerCase().includes(text);
}

/** The filter as a key of a shared read: views with the same filter share one. */
export function filterKey(filter: EventFilter): string {
  return JSON.stringify([filter.type ?? null, filter.status ?? null, filter.text ?? null]);
}

import { Pool } from 'undici';
import type { Endpoint } from './naive-reconcile.js';

/**
 * The pull baseline: page through the feed with `nextCursor` as fast as one connection allows, parsing each
 * page and writing nothing — the ceiling an archiver that writes durably is compared against.
 */
export async function fetchAllPages(endpoint: Endpoint, firstQuery: string): Promise<Record<string, number>> {
  const url = new URL(endpoint.baseUrl);
  const prefix = url.pathname.replace(/\/$/, '');
  const pool = new Pool(url.origin, { connections: 1 });
  let events = 0;
  let pages = 0;
  let query = firstQuery;
  try {
    for (;;) {
      const res = await pool.request({ path: `${prefix}/api/v1/events?${query}`, method: 'GET', headers: { authorization: `Api-Token ${endpoint.token}` } });
      if (res.statusCode !== 200) throw new Error(`events page answered ${res.statusCode}: ${await res.body.text()}`);
      const page = (await res.body.json()) as { events: unknown[]; nextCursor?: string | null };
      events += page.events.length;
      pages++;
      if (!page.nextCursor) break;
      query = `cursor=${encodeURIComponent(page.nextCursor)}`;
    }
  } finally {
    await pool.close();
  }
  return { events, pages };
}

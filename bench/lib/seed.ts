import { Pool } from 'undici';
import { dashboardId, generateDashboard } from '../data/dashboards.js';

/** An environment root (`http://127.0.0.1:port/e/local`) and a token with the scopes the figure needs. */
export interface Endpoint {
  baseUrl: string;
  token: string;
}

export function endpointParts({ baseUrl }: Endpoint): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, prefix: url.pathname.replace(/\/$/, '') };
}

export const dashboardsPath = (endpoint: Endpoint, id: string): string => `${endpointParts(endpoint).prefix}/api/config/v1/dashboards/${id}`;

export const authHeaders = (endpoint: Endpoint): Record<string, string> => ({ authorization: `Api-Token ${endpoint.token}` });

async function eachConcurrently(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

/** Stores dashboards 0…count-1 of the seed's data set under their stable ids (setup, not measured). */
export async function seedDashboards(endpoint: Endpoint, seed: number, count: number): Promise<string[]> {
  const pool = new Pool(endpointParts(endpoint).origin, { connections: 8 });
  const ids = Array.from({ length: count }, (_, i) => dashboardId(seed, i));
  try {
    await eachConcurrently(count, 8, async (i) => {
      const id = ids[i] ?? '';
      const res = await pool.request({
        path: dashboardsPath(endpoint, id),
        method: 'PUT',
        headers: { ...authHeaders(endpoint), 'content-type': 'application/json' },
        body: JSON.stringify(generateDashboard(seed, i)),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201 && res.statusCode !== 204) throw new Error(`seeding PUT ${id} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    });
  } finally {
    await pool.close();
  }
  return ids;
}

/** The exact bytes the server answers for each dashboard path: what the bare baseline serves from memory. */
export async function fetchBodies(endpoint: Endpoint, ids: readonly string[]): Promise<Record<string, string>> {
  const pool = new Pool(endpointParts(endpoint).origin, { connections: 8 });
  const bodies: Record<string, string> = {};
  try {
    await eachConcurrently(ids.length, 8, async (i) => {
      const path = dashboardsPath(endpoint, ids[i] ?? '');
      const res = await pool.request({ path, method: 'GET', headers: authHeaders(endpoint) });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      bodies[path] = text;
    });
  } finally {
    await pool.close();
  }
  return bodies;
}

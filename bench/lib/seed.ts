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

/** Runs `work(0…count-1)`, `concurrency` at a time. */
export async function eachConcurrently(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
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
export function fetchBodies(endpoint: Endpoint, ids: readonly string[]): Promise<Record<string, string>> {
  return fetchPaths(endpointParts(endpoint).origin, ids.map((id) => dashboardsPath(endpoint, id)), authHeaders(endpoint));
}

/** The exact bytes (as text) the server at `origin` answers GET with for each path; anything but 200 is an error. */
export async function fetchPaths(origin: string, paths: readonly string[], headers: Record<string, string>): Promise<Record<string, string>> {
  const pool = new Pool(origin, { connections: 8 });
  const bodies: Record<string, string> = {};
  try {
    await eachConcurrently(paths.length, 8, async (i) => {
      const path = paths[i] ?? '';
      const res = await pool.request({ path, method: 'GET', headers });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      bodies[path] = text;
    });
  } finally {
    await pool.close();
  }
  return bodies;
}

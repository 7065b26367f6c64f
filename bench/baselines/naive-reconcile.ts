import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import jsonPatch from 'fast-json-patch';
import { Pool } from 'undici';
import { parse, parseDocument } from 'yaml';
import { endpointParts, type Endpoint } from '../lib/seed.js';

/** Every `.yaml` file under `dir`, sorted, as the loader would find them. */
export async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The validate baseline: `yaml`'s parseDocument over each file, one by one, with nothing else. */
export async function parseEachFile(dir: string): Promise<Record<string, number>> {
  let errors = 0;
  const files = await yamlFiles(dir);
  for (const file of files) errors += parseDocument(await readFile(file, 'utf8')).errors.length;
  return { files: files.length, errors };
}

export type { Endpoint };

const SERVER_OWNED = new Set(['id', 'metadata']);

function withoutServerFields(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !SERVER_OWNED.has(k)));
}

/**
 * The plan baseline: for each file in turn, parse it with positions (what validation needs), GET the live
 * dashboard, and diff the two. One request at a time, every file parsed with the full document API.
 */
export async function naivePlan(dir: string, endpoint: Endpoint): Promise<Record<string, number>> {
  const { origin, prefix } = endpointParts(endpoint);
  const pool = new Pool(origin, { connections: 1 });
  let differing = 0;
  const files = await yamlFiles(dir);
  try {
    for (const file of files) {
      const desired = parseDocument(await readFile(file, 'utf8')).toJS() as Record<string, unknown>;
      const res = await pool.request({ path: `${prefix}/api/config/v1/dashboards/${String(desired['id'])}`, method: 'GET', headers: { authorization: `Api-Token ${endpoint.token}` } });
      const live = (await res.body.json()) as Record<string, unknown>;
      if (jsonPatch.compare(withoutServerFields(live), withoutServerFields(desired)).length > 0) differing++;
    }
  } finally {
    await pool.close();
  }
  return { files: files.length, differing };
}

/** The apply baseline: parse each file and PUT it, one request at a time, no validation pass. */
export async function sequentialPuts(dir: string, endpoint: Endpoint): Promise<Record<string, number>> {
  const { origin, prefix } = endpointParts(endpoint);
  const pool = new Pool(origin, { connections: 1 });
  let failed = 0;
  const files = await yamlFiles(dir);
  try {
    for (const file of files) {
      const desired = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      const res = await pool.request({
        path: `${prefix}/api/config/v1/dashboards/${String(desired['id'])}`,
        method: 'PUT',
        headers: { authorization: `Api-Token ${endpoint.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(desired),
      });
      await res.body.dump();
      if (res.statusCode >= 300) failed++;
    }
  } finally {
    await pool.close();
  }
  if (failed > 0) throw new Error(`${failed} of ${files.length} baseline PUTs failed`);
  return { files: files.length };
}

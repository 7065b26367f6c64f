import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dashboard } from '../../src/schema/dashboard.js';
import { ErrorEnvelope } from '../../src/schema/error-envelope.js';
import { dashboardsUrl, startTestServer, type TestServer } from '../helpers/server.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS = CORPUS_DASHBOARDS_DIR;
const SEEDS = [
  'keptn-dtsvc__basic-dashboard_query-dashboard.json',
  'keptn-dtsvc__usql_tiles-pie_chart_visualization-dashboard.json',
  'govuk-obs__capacity-pab-conformance.json',
  'dt-perform2022__highLevelOverview.json',
].map((name) => JSON.parse(readFileSync(`${CORPUS}/${name}`, 'utf8')) as unknown);

const REMOVE = Symbol('remove');
const PUT_ID = '55555555-aaaa-4bbb-8ccc-000000000001';

/** Follows `steps` down into the value (each step picks a child modulo the count) and replaces or removes it. */
function mutate(value: unknown, steps: readonly number[], replacement: unknown): unknown {
  if (steps.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const [step = 0, ...rest] = steps;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement === REMOVE ? value : [replacement];
    const index = step % value.length;
    const copy = [...value];
    const next = mutate(copy[index], rest, replacement);
    if (next === REMOVE) copy.splice(index, 1);
    else copy[index] = next;
    return copy;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return replacement;
  const [key] = entries[step % entries.length]!;
  const next = mutate((value as Record<string, unknown>)[key], rest, replacement);
  const copy: Record<string, unknown> = { ...value };
  if (next === REMOVE) delete copy[key];
  else copy[key] = next;
  return copy;
}

const mutatedDashboard = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(fc.tuple(fc.array(fc.nat({ max: 50 }), { maxLength: 8 }), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(REMOVE))), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([seed, mutations]) => JSON.stringify(mutations.reduce((acc, [steps, value]) => mutate(acc, steps, value), seed) ?? null));

const hostileText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
  fc.jsonValue().map((value) => (JSON.stringify(value) ?? 'null').slice(0, -1)),
  fc.nat({ max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.constantFrom('{"__proto__":{"x":1}}', '{"dashboardMetadata":{"constructor":{}}}', '{"a":1e999}', '\u0000', '{"a":"\\ud800"}'),
  mutatedDashboard,
);

const target = fc.constantFrom(
  { method: 'POST', path: '' },
  { method: 'POST', path: '/validator' },
  { method: 'PUT', path: `/${PUT_ID}` },
  { method: 'POST', path: `/${PUT_ID}/validator` },
);

const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', '', 'application/json; charset=latin1');

describe('fuzzing the write endpoints', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  async function send(method: string, path: string, body: string | Uint8Array, type: string): Promise<void> {
    const headers: Record<string, string> = { authorization: `Api-Token ${server.token}` };
    if (type !== '') headers['content-type'] = type;
    const response = await fetch(dashboardsUrl(server, path), { method, headers, body });
    const text = await response.text();
    expect(response.status, text).toBeLessThan(500);
    if (response.status >= 400) {
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const envelope = ErrorEnvelope.parse(JSON.parse(text));
      expect(envelope.error.code).toBe(response.status);
    }
  }

  it('answers random and mutated bodies with no 5xx, and every 4xx is a valid ErrorEnvelope', async () => {
    await fc.assert(
      fc.asyncProperty(target, hostileText, contentType, async ({ method, path }, body, type) => send(method, path, body, type)),
      { numRuns: 300 },
    );
  });

  it('answers random bytes with no 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(target, fc.uint8Array({ maxLength: 300 }), async ({ method, path }, bytes) => send(method, path, bytes, 'application/json')),
      { numRuns: 100 },
    );
  });

  it('after the storm, every stored dashboard is whole and valid', async () => {
    const list = (await (await fetch(dashboardsUrl(server), { headers: { authorization: `Api-Token ${server.token}` } })).json()) as {
      dashboards: Array<{ id: string }>;
    };
    for (const { id } of list.dashboards) {
      const response = await fetch(dashboardsUrl(server, `/${id}`), { headers: { authorization: `Api-Token ${server.token}` } });
      expect(response.status).toBe(200);
      expect(Dashboard.safeParse(await response.json()).success).toBe(true);
    }
  });
});

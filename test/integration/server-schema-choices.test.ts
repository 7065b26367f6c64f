import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, dashboardsUrl, expectEnvelope, startTestServer, type TestServer } from '../helpers/server.js';

/** A create body whose dashboardMetadata carries `extra` on top of name and owner. */
const withMetadata = (extra: Record<string, unknown>): Record<string, unknown> => ({
  dashboardMetadata: { name: 'choices', owner: 'tester', ...extra },
  tiles: [],
});

/** Choices the spec leaves open (docs/api-decisions.md, "Dashboard model"), pinned over HTTP with the validator. */
describe('dashboard model choices the spec leaves open', () => {
  let server: TestServer;
  const validate = (body: unknown) => api(dashboardsUrl(server, '/validator'), { method: 'POST', token: server.token, body });
  beforeAll(async () => (server = await startTestServer()));
  afterAll(async () => server.close());

  it.each(['small', 'medium', 'large', null])('accepts tilesNameSize %j', async (size) => {
    expect((await validate(withMetadata({ tilesNameSize: size }))).status).toBe(204);
  });

  it.each(['huge', 'MEDIUM', '', 2])('refuses tilesNameSize %j with a violation at its path', async (size) => {
    const envelope = expectEnvelope(await validate(withMetadata({ tilesNameSize: size })), 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations?.map((v) => v.path)).toEqual(['dashboardMetadata.tilesNameSize']);
  });

  it('accepts any string as a timeframe, on the dashboard and on a tile, as real exports use them', async () => {
    const real = ['l_72_HOURS', '', '-2h', '-72h to now', 'today', 'Last 2 hours', 'now-5m', '-1M\\0M to now\\0M', '2026-02-01T10:39:00Z to 2026-02-28T10:39:00Z', 'anything at all'];
    for (const timeframe of real) {
      const tile = { name: 't', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 38, height: 38 }, markdown: 'x', tileFilter: { timeframe } };
      const body = { ...withMetadata({ dashboardFilter: { timeframe, managementZone: null } }), tiles: [tile] };
      expect((await validate(body)).status, timeframe).toBe(204);
    }
    expect((await validate(withMetadata({ dashboardFilter: { timeframe: null } }))).status).toBe(204);
  });

  it('refuses a timeframe that is not a string', async () => {
    const envelope = expectEnvelope(await validate(withMetadata({ dashboardFilter: { timeframe: 72 } })), 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations?.map((v) => v.path)).toEqual(['dashboardMetadata.dashboardFilter.timeframe']);
  });
});

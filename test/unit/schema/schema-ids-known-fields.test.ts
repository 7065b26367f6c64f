import { describe, expect, it } from 'vitest';

/*
 * The schema modules are imported inside each test, not at the top of the file: a schema that throws while its
 * module loads then fails these tests, where a failed file load would count, in a mutation run, as no test failing.
 */
const ids = () => import('../../../src/schema/ids.js');
const dashboard = () => import('../../../src/schema/dashboard.js');
const known = () => import('../../../src/schema/known-fields.js');
const tiles = () => import('../../../src/schema/tiles.js');

const ID = '12345678-1111-4444-8888-123456789012'; // a real export's id: no RFC version or variant

describe('dashboard ids', () => {
  it('accept the 8-4-4-4-12 hex shape in any case, lowercased', async () => {
    const { DashboardId, parseDashboardId } = await ids();
    expect(DashboardId.parse(ID.toUpperCase())).toBe(ID);
    expect(parseDashboardId('ABCDEF01-2345-6789-abcd-ef0123456789')).toBe('abcdef01-2345-6789-abcd-ef0123456789');
  });

  it('refuse anything before or after the shape, so an id can never carry a path', async () => {
    const { DashboardId, parseDashboardId } = await ids();
    for (const raw of [`${ID}/../../etc`, `${ID}0`, `../${ID}`, ` ${ID}`, `${ID}\n`, ID.slice(1), '']) {
      expect(parseDashboardId(raw), raw).toBeUndefined();
      expect(DashboardId.safeParse(raw).success, raw).toBe(false);
    }
  });
});

describe('environment ids', () => {
  it('accept lowercase letters, digits and dashes, starting with a letter or digit, up to 63 characters', async () => {
    const { DEFAULT_ENVIRONMENT, EnvironmentId } = await ids();
    for (const id of ['local', 'prod', 'eu-west-1', '0day', 'a', 'b'.repeat(63)]) expect(EnvironmentId.safeParse(id).success, id).toBe(true);
    expect(DEFAULT_ENVIRONMENT).toBe('local');
  });

  it('refuse what could not safely name a folder', async () => {
    const { EnvironmentId } = await ids();
    for (const id of ['', '-prod', 'Prod', 'prod/x', '..', 'p_d', 'b'.repeat(64)]) expect(EnvironmentId.safeParse(id).success, id).toBe(false);
  });
});

describe('known fields', () => {
  it('mark the dashboard metadata, sharing details and bounds as closed, tile models as listed', async () => {
    const [{ DashboardMetadata, SharingDetails }, { knownFields }, { MarkdownTile, TileBounds }] = await Promise.all([dashboard(), known(), tiles()]);
    expect(knownFields.get(DashboardMetadata)).toEqual({ unknownKeys: 'closed' });
    expect(knownFields.get(SharingDetails)).toEqual({ unknownKeys: 'closed' });
    expect(knownFields.get(TileBounds)).toEqual({ unknownKeys: 'closed' });
    expect(knownFields.get(MarkdownTile)).toEqual({ unknownKeys: 'listed' });
  });

  it('report a misspelled key of the metadata and of a tile, naming the known ones', async () => {
    const { findUnknownKeys } = await import('../../../src/desired/unknown-keys.js');
    const found = findUnknownKeys({
      dashboardMetadata: { name: 'Hosts', owner: 'ops', tag: ['x'], sharingDetails: { linkShared: true, publishd: false } },
      tiles: [{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 38 }, markdown: 'x', markdwn: 'y' }],
    });
    expect(found.map((u) => [u.parent.join('.'), u.key])).toEqual([
      ['dashboardMetadata', 'tag'],
      ['dashboardMetadata.sharingDetails', 'publishd'],
      ['tiles.0', 'markdwn'],
    ]);
    expect(found[1]?.known).toEqual(['linkShared', 'published']);
    expect(found[2]?.known).toContain('markdown');
  });

  it('close the JSON Schema of the dashboard metadata, so editors flag a misspelled key there', async () => {
    const { dashboardFileJsonSchema } = await import('../../../src/schema/json-schema.js');
    const metadata = (dashboardFileJsonSchema() as { properties: { dashboardMetadata: { additionalProperties?: unknown } } }).properties.dashboardMetadata;
    expect(metadata.additionalProperties).toBe(false);
  });
});

describe('response bodies the client checks', () => {
  const live = (dashboardMetadata: Record<string, unknown>) => ({ id: ID, dashboardMetadata, tiles: [{ tileType: 'NEWER_TILE_TYPE', whatever: 1 }] });

  it('a live dashboard needs a name and an owner, and tags as a list; tiles need only a type', async () => {
    const { LiveDashboard } = await dashboard();
    expect(LiveDashboard.safeParse(live({ name: 'Hosts', owner: 'ops', tags: ['a'] })).success).toBe(true);
    expect(LiveDashboard.safeParse(live({ owner: 'ops' })).success).toBe(false);
    expect(LiveDashboard.safeParse(live({ name: 'Hosts' })).success).toBe(false);
    expect(LiveDashboard.safeParse(live({ name: 'Hosts', owner: 'ops', tags: 'a' })).success).toBe(false);
  });

  it('a created dashboard names its id', async () => {
    const { CreatedDashboard } = await dashboard();
    expect(CreatedDashboard.safeParse({ id: ID, name: 'Hosts' }).success).toBe(true);
    expect(CreatedDashboard.safeParse({ name: 'Hosts' }).success).toBe(false);
  });
});

describe('dynamic filter hints', () => {
  it.each([
    ['SERVICE_TYP', 'SERVICE_TYPE', 'the allowed filter a typo is closest to'],
    ['HOST_TAG_KY:env', 'HOST_TAG_KEY:env', 'the parameterized kind a typo is closest to, keeping its parameter'],
  ])('%s gets the hint %s (%s)', async (typo, suggestion) => {
    const { checkDashboardSource } = await import('../../../src/desired/check-file.js');
    const check = checkDashboardSource(`dashboardMetadata:\n  name: CPU\n  owner: ops\n  dynamicFilters:\n    filters: [${typo}]\n    genericTagFilters: []\ntiles: []\n`);
    expect(check).toStrictEqual({
      ok: false,
      problems: [{ line: 5, col: 15, path: 'dashboardMetadata.dynamicFilters.filters[0]', message: `unknown value "${typo}"; did you mean ${suggestion}?` }],
    });
  });
});

describe('generic tag filters', () => {
  it('check the type of each member where it is written', async () => {
    const { checkDashboardSource } = await import('../../../src/desired/check-file.js');
    const check = checkDashboardSource('dashboardMetadata:\n  name: CPU\n  owner: ops\n  dynamicFilters:\n    filters: []\n    genericTagFilters:\n      - entityTypes: HOST\n        displayName: 3\ntiles: []\n');
    expect(check).toStrictEqual({
      ok: false,
      problems: [
        { line: 7, col: 22, path: 'dashboardMetadata.dynamicFilters.genericTagFilters[0].entityTypes', message: 'Invalid input: expected array, received string' },
        { line: 8, col: 22, path: 'dashboardMetadata.dynamicFilters.genericTagFilters[0].displayName', message: 'Invalid input: expected string, received number' },
      ],
    });
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreatedDashboard, Dashboard, DashboardList, LiveDashboard } from '../../../src/schema/dashboard.js';
import { DynamicFilterEntry } from '../../../src/schema/filters.js';
import { Tile, TILE_TYPES, TileType } from '../../../src/schema/tiles.js';
import { CORPUS_DASHBOARDS_DIR, CORPUS_DIR, SHARED_DIR } from '../../helpers/corpus.js';
import { issuesOf } from '../../helpers/schema-issues.js';

const SPEC = readFileSync(join(SHARED_DIR, 'spec/api.md'), 'utf8');

/** The specification's "Tile types and their models" table: model name → its tileType values. */
const SPEC_MODELS = new Map(
  [...SPEC.matchAll(/^\| ([A-Za-z]+Tile|Tile \(common fields only\)) \| ([A-Z_, ]+) \|$/gm)].map((m) => [m[1] as string, (m[2] as string).split(', ')]),
);
/** The specification's allowed entries of `dynamicFilters.filters`. */
const SPEC_FILTERS = [...(/^Allowed entries of `filters`: (.*)$/m.exec(SPEC)?.[1] ?? '').matchAll(/`([A-Z_]+)(:<[a-z]+>)?`/g)].map((m) => ({ kind: m[1] as string, parameterized: m[2] !== undefined }));

/**
 * The members each model requires beyond the common ones (docs/real-service-behaviour.md §3, the 2023 spec's
 * `required`), with values of the shapes real exports carry.
 */
const REQUIRED_BY_MODEL: Record<string, Record<string, unknown>> = {
  DataExplorerTile: { queries: [{ id: 'A', enabled: true }], visualConfig: { type: 'GRAPH_CHART', rules: [] } },
  CustomChartingTile: {},
  UserSessionQueryTile: { customName: 'Sessions', query: 'SELECT count(*) FROM usersession', type: 'COLUMN_CHART' },
  MarkdownTile: { markdown: '## Links' },
  ImageTile: { image: 'data:image/png;base64,iVBORw0KGgo=' },
  FilterableEntityTile: {},
  AssignedEntitiesWithMetricTile: { assignedEntities: ['7d07efde-b714-3e6e-ad95-08490e2540c5'] },
  SyntheticSingleWebcheckTile: { assignedEntities: ['SYNTHETIC_TEST-0000000000000001'] },
  AssignedEntitiesTile: { assignedEntities: ['APPLICATION-0000000000000001'] },
  ScalableListTile: {},
  ProblemTile: {},
  'Tile (common fields only)': {},
};

function tile(tileType: string, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Tile', tileType, configured: true, bounds: { top: 0, left: 0, width: 304, height: 38 }, tileFilter: {}, ...REQUIRED_BY_MODEL[model], ...extra };
}


const corpusFiles = readdirSync(CORPUS_DASHBOARDS_DIR).filter((name) => name.endsWith('.json'));
const readCorpus = (name: string): unknown => JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, name), 'utf8'));
const REJECTED = ['mauney-automation__dashboard_template.json', 'mauney-automation__00000000-dddd-bbbb-aaaa-000000000002.json'];

describe('tile models', () => {
  it('know exactly the tileType values of the specification, in its order', () => {
    expect(SPEC_MODELS.size).toBe(12);
    expect(TILE_TYPES).toEqual([...SPEC_MODELS.values()].flat());
    expect(TileType.options).toEqual([...SPEC_MODELS.values()].flat());
  });

  it.each([...SPEC_MODELS].flatMap(([model, types]) => types.map((type) => [type, model])))('accept a %s tile with the members of %s', (type, model) => {
    expect(issuesOf(Tile, tile(type, model))).toEqual([]);
  });

  it.each(Object.entries(REQUIRED_BY_MODEL).flatMap(([model, members]) => Object.keys(members).map((member) => [model, member])))('%s requires %s', (model, member) => {
    const type = SPEC_MODELS.get(model)?.[0] as string;
    const value = tile(type, model);
    delete value[member];
    const sample = REQUIRED_BY_MODEL[model]?.[member];
    const kind = Array.isArray(sample) ? 'array' : typeof sample;
    expect(issuesOf(Tile, value)).toEqual([`${member}: Invalid input: expected ${kind}, received undefined`]);
  });

  it('require a name and bounds on every tile', () => {
    expect(issuesOf(Tile, { tileType: 'HEADER' })).toEqual(['name: Invalid input: expected string, received undefined', 'bounds: Invalid input: expected object, received undefined']);
  });

  it('name the allowed types when the tileType is not one (DATA_EXPLORER_CODE, from a real export)', () => {
    const expected = `tileType: Invalid tileType: expected one of ${[...SPEC_MODELS.values()].flat().join(', ')}`;
    expect(issuesOf(Tile, tile('DATA_EXPLORER_CODE', 'Tile (common fields only)'))).toEqual([expected]);
    expect(issuesOf(Tile, 'HEADER')).toEqual([': Invalid input: expected object, received string']);
  });

  it('accept the three documented name sizes, the empty one real exports carry, and null', () => {
    for (const nameSize of ['small', 'medium', 'large', '', null]) expect(issuesOf(Tile, tile('HEADER', 'Tile (common fields only)', { nameSize }))).toEqual([]);
    expect(issuesOf(Tile, tile('HEADER', 'Tile (common fields only)', { nameSize: 'huge' }))).toHaveLength(1);
  });

  it('take integer bounds only, and keep members the specification does not show', () => {
    expect(issuesOf(Tile, tile('HEADER', 'Tile (common fields only)', { bounds: { top: 0.5 } }))).toEqual(['bounds.top: Invalid input: expected int, received number']);
    const parsed = Tile.parse(tile('OPEN_PROBLEMS', 'ProblemTile', { useBackgroundColor: false, bounds: { top: 0, extra: 1 } }));
    expect(parsed).toMatchObject({ useBackgroundColor: false, bounds: { top: 0, extra: 1 } });
  });
});

describe('dashboards', () => {
  it.each(corpusFiles.filter((name) => !REJECTED.includes(name)))('accept the real dashboard %s', (name) => {
    expect(issuesOf(Dashboard, readCorpus(name))).toEqual([]);
  });

  it('refuse the two real files that break a rule of the specification, at the exact member', () => {
    expect(issuesOf(Dashboard, readCorpus('mauney-automation__00000000-dddd-bbbb-aaaa-000000000002.json'))).toEqual([
      'dashboardMetadata.dynamicFilters.genericTagFilters: Invalid input: expected array, received undefined',
    ]);
    expect(issuesOf(Dashboard, readCorpus('mauney-automation__dashboard_template.json'))).toEqual([
      `tiles.39.tileType: Invalid tileType: expected one of ${TILE_TYPES.join(', ')}`,
    ]);
  });

  it('as a target answers them, are all accepted, so a newer tile type shows as drift instead of failing the plan', () => {
    for (const name of corpusFiles) expect(issuesOf(LiveDashboard, readCorpus(name))).toEqual([]);
    expect(issuesOf(LiveDashboard, { dashboardMetadata: { name: 'x', owner: 'y' }, tiles: [{ name: 'no type' }] })).toHaveLength(1);
  });

  it('require a name and an owner, and take only the documented tile name sizes for the whole dashboard', () => {
    expect(issuesOf(Dashboard, { dashboardMetadata: {}, tiles: [] })).toEqual([
      'dashboardMetadata.name: Invalid input: expected string, received undefined',
      'dashboardMetadata.owner: Invalid input: expected string, received undefined',
    ]);
    for (const tilesNameSize of ['small', 'medium', 'large']) expect(issuesOf(Dashboard, { dashboardMetadata: { name: 'n', owner: 'o', tilesNameSize }, tiles: [] })).toEqual([]);
    expect(issuesOf(Dashboard, { dashboardMetadata: { name: 'n', owner: 'o', tilesNameSize: '' }, tiles: [] })).toHaveLength(1);
  });

  it('accept the specification example metadata, and refuse configuration versions that are not integers', () => {
    const example = { metadata: { configurationVersions: [4, 2], clusterVersion: 'Mock version' }, dashboardMetadata: { name: 'Example Dashboard', owner: 'Example Owner', shared: true, dashboardFilter: { timeframe: 'l_72_HOURS', managementZone: { id: '3438779970106539862', name: 'Example Management Zone' } } }, tiles: [] };
    expect(issuesOf(Dashboard, example)).toEqual([]);
    expect(issuesOf(Dashboard, { ...example, metadata: { configurationVersions: [1.5] } })).toEqual(['metadata.configurationVersions.0: Invalid input: expected int, received number']);
  });

  it('read the real dashboard list, with duplicate names and Dynatrace-owned entries', () => {
    const list = DashboardList.parse(JSON.parse(readFileSync(join(CORPUS_DIR, 'dashboard-lists/monaco__download-test-__LIST.json'), 'utf8')));
    expect(list.dashboards.length).toBeGreaterThan(1);
    expect(issuesOf(DashboardList, { dashboards: [{ name: 'no id' }] })).toEqual(['dashboards.0.id: Invalid input: expected string, received undefined']);
  });

  it('read the specification example answer of a create', () => {
    expect(CreatedDashboard.parse({ id: '6a98d7bc-abb9-44f8-ae6a-73e68e71812a', name: 'Dynatrace entity', description: 'Dynatrace entity for the REST API example' })).toMatchObject({ id: '6a98d7bc-abb9-44f8-ae6a-73e68e71812a' });
  });
});

describe('dynamic filter entries', () => {
  it('the specification lists 11 plain and 6 parameterized filters', () => {
    expect(SPEC_FILTERS.filter((f) => !f.parameterized)).toHaveLength(11);
    expect(SPEC_FILTERS.filter((f) => f.parameterized)).toHaveLength(6);
  });

  it.each(SPEC_FILTERS)('accept $kind as the specification allows it', ({ kind, parameterized }) => {
    expect(DynamicFilterEntry.safeParse(parameterized ? `${kind}:team` : kind).success).toBe(true);
    expect(DynamicFilterEntry.safeParse(parameterized ? kind : `${kind}:team`).success).toBe(false);
    if (parameterized) expect(DynamicFilterEntry.safeParse(`${kind}:`).success).toBe(false);
  });

  it('refuse other entries and name every allowed form', () => {
    const allowed = `${SPEC_FILTERS.filter((f) => !f.parameterized).map((f) => f.kind).join(', ')} or ${SPEC_FILTERS.filter((f) => f.parameterized).map((f) => `${f.kind}:<name>`).join(', ')}`;
    // HOST_TAG_KEYS: a parameterized kind with one more letter and no colon (a typo, not a kind and a parameter).
    for (const entry of ['', ':team', 'os_type', 'UNKNOWN:team', 'SERVICE_TYPE ', 'HOST_TAG_KEYS']) {
      expect(issuesOf(DynamicFilterEntry, entry)).toEqual([`: Not an allowed filter: use one of ${allowed}`]);
    }
  });

  it('take a parameter that itself holds a colon', () => {
    expect(DynamicFilterEntry.safeParse('CUSTOM_DIMENSION:k8s:namespace').success).toBe(true);
  });
});

import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toDashboardYaml } from '../../../src/desired/dashboard-yaml.js';
import { fastParseYaml } from '../../../src/desired/fast-yaml/fast-parse.js';

const LIVE = {
  metadata: { clusterVersion: '1.300', configurationVersions: [7] },
  tiles: [
    { tileFilter: {}, bounds: { height: 152, width: 304, left: 0, top: 38 }, markdown: '## Notes\n\n- one\n- two\n', tileType: 'MARKDOWN', name: 'Notes', configured: true },
  ],
  dashboardMetadata: { tags: ['b', 'a'], popularity: 3, owner: 'ops', dashboardFilter: null, name: 'CPU', shared: true, preset: false },
  id: '6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
};

describe('toDashboardYaml', () => {
  it('drops server-owned fields, keeps the id and writes keys in reading order', () => {
    const yaml = toDashboardYaml(LIVE);
    expect(yaml).toBe(
      [
        'id: 6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6',
        'dashboardMetadata:',
        '  name: CPU',
        '  owner: ops',
        '  shared: true',
        '  preset: false',
        '  tags:',
        '    - b',
        '    - a',
        '  dashboardFilter: null',
        'tiles:',
        '  - name: Notes',
        '    tileType: MARKDOWN',
        '    configured: true',
        '    bounds:',
        '      top: 38',
        '      left: 0',
        '      width: 304',
        '      height: 152',
        '    tileFilter: {}',
        '    markdown: |',
        '      ## Notes',
        '',
        '      - one',
        '      - two',
        '',
      ].join('\n'),
    );
  });

  it('round-trips to an equal value, on the fast path', () => {
    const yaml = toDashboardYaml(LIVE);
    const { metadata: _m, ...expected } = structuredClone(LIVE);
    const { popularity: _p, ...meta } = expected.dashboardMetadata;
    const fast = fastParseYaml(yaml);
    expect(fast.ok && isDeepStrictEqual(fast.value, { ...expected, dashboardMetadata: meta })).toBe(true);
  });

  it('keeps members named like Object.prototype functions (toString, constructor, valueOf) as data', () => {
    const dashboard = { toString: [], constructor: 'c', dashboardMetadata: { name: 'n', owner: 'o', valueOf: 1 }, tiles: [] };
    expect(parse(toDashboardYaml(dashboard))).toEqual({ dashboardMetadata: { name: 'n', owner: 'o', valueOf: 1 }, tiles: [], toString: [], constructor: 'c' });
  });

  it('round-trips any JSON value it is given (strings that look like other types, long lines, line breaks)', () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('on', 'yes', 'null', '~', '1e3', '0x10', '- x', 'a: b', '#', ' lead', 'x'.repeat(200), 'a\n b\n\n', '"q"'));
    const json = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(text, tie('node'), { maxKeys: 3, noNullPrototype: true })),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(text, json, { maxKeys: 4, noNullPrototype: true }), json, (rest, tiles) => {
        const dashboard = { ...rest, dashboardMetadata: { name: 'n', owner: 'o' }, tiles };
        const parsed = parse(toDashboardYaml(dashboard)) as Record<string, unknown>;
        const { metadata: _m, ...expected } = dashboard as Record<string, unknown>;
        expect(isDeepStrictEqual(parsed, expected)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never folds a long line and writes a shared object in full each time', () => {
    // Tiles that share one tileFilter object (as a caller building dashboards might): the default of `yaml` would
    // write `&a1` and `*a1`; a name over 80 characters would be folded onto two lines.
    const tileFilter = { timeframe: 'now-2h', managementZone: null };
    const name = 'CPU and memory of every host in the production cluster, by availability zone and by owning team';
    const yaml = toDashboardYaml({ dashboardMetadata: { name, owner: 'ops' }, tiles: [{ name: 'a', tileFilter }, { name: 'b', tileFilter }] });
    expect(yaml).toBe(
      [
        'dashboardMetadata:',
        `  name: ${name}`,
        '  owner: ops',
        'tiles:',
        '  - name: a',
        '    tileFilter:',
        '      timeframe: now-2h',
        '      managementZone: null',
        '  - name: b',
        '    tileFilter:',
        '      timeframe: now-2h',
        '      managementZone: null',
        '',
      ].join('\n'),
    );
  });

  it('refuses what is not a dashboard object', () => {
    for (const value of [null, [], 'dashboardMetadata', 3]) {
      expect(() => toDashboardYaml(value), JSON.stringify(value)).toThrow(new TypeError('toDashboardYaml expects a dashboard object'));
    }
  });

  it('writes members of unexpected types as they are', () => {
    expect(toDashboardYaml({ tiles: 'none', dashboardMetadata: null })).toBe('dashboardMetadata: null\ntiles: none\n');
    expect(toDashboardYaml({ tiles: [null, 'x', { bounds: [1], name: 'n' }] })).toBe('tiles:\n  - null\n  - x\n  - name: n\n    bounds:\n      - 1\n');
  });

  it('writes an object that appears twice in full, never as an anchor and alias', () => {
    const bounds = { top: 0, left: 0, width: 1, height: 1 };
    const yaml = toDashboardYaml({ dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [{ name: 'a', bounds }, { name: 'b', bounds }] });
    expect(yaml).not.toMatch(/[&*]a1/);
  });
});

describe('toDashboardYaml keeps every string exactly', () => {
  it('writes multi-line strings no block scalar reads back (a first line of spaces) double-quoted, and parses back to the same markdown', () => {
    const texts = [' \n', '  \n', '\n \n', ' \n\n', ' \t\n', 'a\n \n', '## Title\n\nbody\n', 'x\n\n', 'trail \nx'];
    const dashboard = { dashboardMetadata: { name: 'n', owner: 'o' }, tiles: texts.map((markdown, i) => ({ name: `t${i}`, tileType: 'MARKDOWN', markdown })) };
    const yaml = toDashboardYaml(dashboard);
    expect((parse(yaml) as typeof dashboard).tiles.map((tile) => tile.markdown)).toEqual(texts);
    // Those a block keeps stay blocks, readable in a review.
    expect(yaml).toContain('markdown: |\n      ## Title\n');
    expect(yaml).toContain('markdown: " \\n"');
  });
});

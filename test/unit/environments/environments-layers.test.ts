import { describe, expect, it } from 'vitest';
import { applyOverrides, appliesTo } from '../../../src/environments/apply-overrides.js';
import type { DashcdBlock } from '../../../src/environments/dashcd-block.js';

const md = (name: string, extra: Record<string, unknown> = {}): { name: string } & Record<string, unknown> => ({ name, tileType: 'MARKDOWN', markdown: name, ...extra });
const DEV = { name: 'dev', group: null };

describe('applyOverrides: edge cases of the layers', () => {
  it('drops every tile of a name limited to other environments, and only those', () => {
    const file = { tiles: [md('Debug', { markdown: 'one' }), md('Keep'), md('Debug', { markdown: 'two' }), md('Last')] };
    const block: DashcdBlock = { tiles: { Debug: { environments: ['prod'] } } };
    const layered = applyOverrides(file, block, DEV);
    expect((layered?.value.tiles as { name: string }[]).map((t) => t.name)).toEqual(['Keep', 'Last']);
    expect(layered?.originOf(['tiles', 1, 'markdown'])).toEqual(['tiles', 3, 'markdown']);
  });

  it("a null in an override's tile removes that member of the tile", () => {
    const layered = applyOverrides({ tiles: [md('A', { bounds: { top: 0 } })] }, { overrides: { dev: { tiles: [{ name: 'A', bounds: null }] } } }, DEV);
    expect(layered?.value.tiles).toEqual([md('A')]);
    expect(Object.keys((layered?.value.tiles as object[])[0] ?? {})).toEqual(['name', 'tileType', 'markdown']);
  });

  it('leaves a file without tiles without tiles, whatever the overrides add', () => {
    const layered = applyOverrides({ dashboardMetadata: { name: 'x' } }, { overrides: { dev: { tiles: [md('New')] } } }, DEV);
    expect(layered?.value).toEqual({ dashboardMetadata: { name: 'x' } });
    expect('tiles' in (layered?.value ?? {})).toBe(false);
  });

  it('gives an environment without a group no override but its own, whatever the others are named', () => {
    const block: DashcdBlock = { overrides: { null: { dashboardMetadata: { name: 'from null' } }, dev: { dashboardMetadata: { owner: 'dev' } } } };
    expect(applyOverrides({ dashboardMetadata: { name: 'x', owner: 'o' } }, block, DEV)?.value).toEqual({ dashboardMetadata: { name: 'x', owner: 'dev' } });
    expect(appliesTo(['null'], DEV)).toBe(false);
    expect(appliesTo(['null'], { name: 'null', group: null })).toBe(true);
  });

  it("finds a path's origin among the file's members unless it is under a tile by index", () => {
    // The block is in the file too, where origins are looked up.
    const block: DashcdBlock = { overrides: { dev: { other: [{ a: 2 }] } } };
    const layered = applyOverrides({ dashboardMetadata: { name: 'x' }, tiles: [md('A')], other: [{ a: 1 }], dashcd: block }, block, DEV);
    expect(layered?.originOf(['other', 0, 'a'])).toEqual(['dashcd', 'overrides', 'dev', 'other', 0, 'a']);
    expect(layered?.originOf(['tiles'])).toEqual(['tiles']);
    expect(layered?.originOf(['tiles', 0, 'name'])).toEqual(['tiles', 0, 'name']);
    expect(layered?.originOf(['tiles', 'x'])).toEqual(['tiles', 'x']);
    expect(layered?.originOf(['tiles', 9, 'name'])).toEqual(['tiles', 9, 'name']);
  });
});

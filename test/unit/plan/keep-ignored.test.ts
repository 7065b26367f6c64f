import { describe, expect, it } from 'vitest';
import { keepIgnored } from '../../../src/plan/keep-ignored.js';

const FILE = {
  document: { kind: 'dashboard', name: 'Checkout' },
  tiles: { '1': { title: 'Errors total' }, '2': { title: 'New in the file' } },
  layouts: { '1': { x: 8, y: 2, w: 8, h: 4 }, '2': { x: 0, y: 6, w: 4, h: 4 } },
};
const LIVE = {
  document: { kind: 'dashboard', name: 'Checkout', version: 7 },
  tiles: { '1': { title: 'Error count' }, '3': { title: 'Removed from the file' } },
  layouts: { '1': { x: 16, y: 10, w: 8, h: 6 }, '3': { x: 0, y: 0, w: 4, h: 4 } },
};

describe('keepIgnored', () => {
  it("writes the live layout of a tile both have and the file's of a tile it adds; a wildcard keeps none only live has", () => {
    expect(keepIgnored(FILE, LIVE, ['/layouts/*'])).toEqual({ ...FILE, layouts: { '1': { x: 16, y: 10, w: 8, h: 6 }, '2': { x: 0, y: 6, w: 4, h: 4 } } });
    // A rule over the whole map keeps live's members too (build-plan.ts drops a document's layouts of tiles it has not).
    expect(keepIgnored(FILE, LIVE, ['/layouts'])).toEqual({ ...FILE, layouts: { '1': { x: 16, y: 10, w: 8, h: 6 }, '2': { x: 0, y: 6, w: 4, h: 4 }, '3': { x: 0, y: 0, w: 4, h: 4 } } });
  });

  it('keeps what only live has in a map a rule names whole: a description set in the app, a filter, a flag', () => {
    expect(keepIgnored({ document: { kind: 'dashboard', name: 'A' }, tiles: {} }, { document: { kind: 'dashboard', name: 'B', description: 'Runbook', isPrivate: true }, tiles: {} }, ['/document'])).toEqual({
      document: { kind: 'dashboard', name: 'B', description: 'Runbook', isPrivate: true },
      tiles: {},
    });
    const file = { dashboardMetadata: { name: 'D', owner: 'o', tags: ['x'] } };
    const live = { dashboardMetadata: { name: 'D', owner: 'o', shared: true, dashboardFilter: { timeframe: '-7d' } } };
    expect(keepIgnored(file, live, ['/dashboardMetadata'])).toEqual({ dashboardMetadata: { tags: ['x'], name: 'D', owner: 'o', shared: true, dashboardFilter: { timeframe: '-7d' } } });
  });

  it('pairs two tiles apart only in what the rule hides as the same tile, as the plan does', () => {
    const tile = (left: number): Record<string, unknown> => ({ name: 'Markdown', tileType: 'MARKDOWN', markdown: 'same', bounds: { top: 0, left, width: 304, height: 152 } });
    const newTile = { name: 'Markdown', tileType: 'MARKDOWN', markdown: 'new', bounds: { top: 0, left: 0, width: 304, height: 152 } };
    expect(keepIgnored({ tiles: [newTile, tile(0)] }, { tiles: [tile(500)] }, ['/tiles/*/bounds'])).toEqual({ tiles: [newTile, tile(500)] });
  });

  it('keeps a member the rule names exactly from live, adding it when only live has it', () => {
    const file = { dashboardMetadata: { name: 'A', shared: false }, tiles: [] };
    const live = { dashboardMetadata: { name: 'A', shared: true, dashboardFilter: { timeframe: '-7d' } }, tiles: [] };
    expect(keepIgnored(file, live, ['/dashboardMetadata/shared'])).toEqual({ dashboardMetadata: { name: 'A', shared: true }, tiles: [] });
    expect(keepIgnored(file, live, ['/dashboardMetadata/dashboardFilter'])).toEqual({ dashboardMetadata: { name: 'A', shared: false, dashboardFilter: { timeframe: '-7d' } }, tiles: [] });
    // Nothing live at that place: the file's stays.
    expect(keepIgnored(file, { dashboardMetadata: { name: 'A' } }, ['/dashboardMetadata/shared'])).toEqual(file);
  });

  it('matches array items by index: the live bounds of each tile live has, the file’s of a tile it adds', () => {
    const tile = (name: string, left: number): Record<string, unknown> => ({ name, bounds: { top: 0, left, width: 304, height: 152 } });
    const file = { tiles: [tile('a', 0), tile('b', 304), tile('c', 608)] };
    const live = { tiles: [tile('a', 38), tile('b', 342)] };
    expect(keepIgnored(file, live, ['/tiles/*/bounds'])).toEqual({ tiles: [tile('a', 38), tile('b', 342), tile('c', 608)] });
    expect(keepIgnored(file, live, ['/tiles/1/bounds'])).toEqual({ tiles: [tile('a', 0), tile('b', 342), tile('c', 608)] });
    // A whole array the rule names is live's.
    expect(keepIgnored({ tags: ['a'] }, { tags: ['a', 'b'] }, ['/tags'])).toEqual({ tags: ['a', 'b'] });
    expect(keepIgnored({ tags: ['a', 'x'] }, { tags: ['a', 'b'] }, ['/tags/*'])).toEqual({ tags: ['a', 'b'] });
  });

  it('pairs list items as the plan does, by identity: a tile the file inserts first keeps its own bounds, the others theirs', () => {
    const tile = (name: string, left: number, top = 0): Record<string, unknown> => ({ name, tileType: 'MARKDOWN', bounds: { top, left, width: 304, height: 152 } });
    const live = { tiles: [tile('A', 500, 100), tile('B', 500, 0)] };
    const file = { tiles: [tile('N', 0), tile('A', 0), tile('B', 304)] };
    expect(keepIgnored(file, live, ['/tiles/*/bounds'])).toEqual({ tiles: [tile('N', 0), tile('A', 500, 100), tile('B', 500, 0)] });
  });

  it('never keeps an item past the end of the file’s list: a fixed index the file no longer has is left out, not a hole', () => {
    const file = { tiles: [{ name: 'A', bounds: { left: 0 } }, { name: 'B', bounds: { left: 1 } }] };
    const live = { tiles: [{ name: 'A', bounds: { left: 9 } }, { name: 'B', bounds: { left: 9 } }, { name: 'C', bounds: { left: 9 } }, { name: 'D', bounds: { left: 9 } }] };
    expect(keepIgnored(file, live, ['/tiles/3/bounds'])).toBe(file);
    expect(keepIgnored(file, live, ['/tiles/3'])).toBe(file);
    expect(keepIgnored({ tags: ['a'] }, { tags: ['a', 'b'] }, ['/tags/1'])).toEqual({ tags: ['a'] });
    // Only an index names a list's item: `length` is none (it cut the file's list to live's, or left holes).
    expect(keepIgnored(file, live, ['/tiles/length'])).toBe(file);
  });

  it('leaves the file alone where live has another shape, and for rules it cannot read', () => {
    expect(keepIgnored(FILE, { ...LIVE, layouts: [] }, ['/layouts/*'])).toBe(FILE);
    expect(keepIgnored(FILE, { ...LIVE, layouts: 'odd' }, ['/layouts/1'])).toBe(FILE);
    expect(keepIgnored(FILE, LIVE, ['layouts', ''])).toBe(FILE);
    expect(keepIgnored(FILE, LIVE, [])).toBe(FILE);
    expect(keepIgnored(FILE, LIVE, ['/nothing/here'])).toBe(FILE);
  });

  it('modifies neither input, and shares nothing of live with what it returns', () => {
    const file = structuredClone(FILE);
    const live = structuredClone(LIVE);
    const out = keepIgnored(file, live, ['/layouts/*', '/document/name']);
    expect([file, live]).toEqual([FILE, LIVE]);
    (out.layouts['1'] as { x: number }).x = 0;
    expect(live.layouts['1'].x).toBe(16);
  });
});

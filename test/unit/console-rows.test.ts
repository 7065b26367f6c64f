import { describe, expect, it } from 'vitest';
import { consoleEvent } from '../../src/daemon/console-source.js';
import { dashboardRows } from '../../src/console/sync-rows.js';
import { timelineSvg } from '../../src/console/timeline.js';

describe('console sync status', () => {
  it('a file whose last write failed is failed, whatever the plan says; a pending create is drifted', () => {
    const rows = dashboardRows({
      kind: 'desired',
      changes: [
        { action: 'unchanged', id: 'a', name: 'A', file: 'a.yaml' },
        { action: 'unchanged', id: 'b', name: 'B', file: 'b.yaml' },
        { action: 'create', id: 'c', name: 'C', file: 'c.yaml', desired: { dashboardMetadata: { name: 'C', owner: 'o' }, tiles: [] } },
      ],
      problems: [],
      results: { 'b.yaml': { result: 'failed', error: 'HTTP 500', at: '2026-11-23T10:00:00Z' } },
    });
    expect(rows.map((r) => [r.name, r.status])).toEqual([['A', 'synced'], ['C', 'drifted'], ['B', 'failed']]);
    expect(rows.find((r) => r.name === 'B')?.detail).toBe('failed at 2026-11-23T10:00:00Z: HTTP 500');
  });

  it('orphans from the last full pass are listed once, beside those the plan shows', () => {
    const rows = dashboardRows({ kind: 'desired', changes: [{ action: 'orphan', id: 'x', name: 'X' }], problems: [], results: {}, orphans: [{ id: 'x', name: 'X' }, { id: 'y', name: 'Y' }] });
    expect(rows.map((r) => [r.key, r.status])).toEqual([['x', 'orphan'], ['y', 'orphan']]);
  });
});

describe('console timeline', () => {
  it('counts events per hour and series, open without a status until it ends', () => {
    const from = Date.UTC(2026, 10, 23, 10);
    const events = [
      consoleEvent({ id: '1', startTime: from + 1, endTime: undefined, eventStatus: undefined, eventType: 'ERROR_EVENT', entityId: 'H-1', entityName: undefined, eventId: undefined }),
      consoleEvent({ id: '2', startTime: from + 2, endTime: from + 5, eventStatus: undefined, eventType: 'ERROR_EVENT', entityId: undefined, entityName: undefined, eventId: undefined }),
      consoleEvent({ id: '3', startTime: from + 3_600_000 + 9, endTime: undefined, eventStatus: 'CLOSED', eventType: 'CUSTOM_INFO', entityId: undefined, entityName: undefined, eventId: undefined }),
    ];
    expect(events.map((e) => e.status)).toEqual(['OPEN', 'CLOSED', 'CLOSED']);
    const bars = (svg: string): string[] => [...svg.matchAll(/data-hour="([^"]+)" data-series="([^"]+)" data-count="(\d+)"/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const window = { from, to: from + 2 * 3_600_000 };
    expect(bars(timelineSvg(events, window, 'type', 'by type'))).toEqual(['2026-11-23T10 ERROR_EVENT 2', '2026-11-23T11 CUSTOM_INFO 1']);
    expect(bars(timelineSvg(events, window, 'status', 'by status'))).toEqual(['2026-11-23T10 CLOSED 1', '2026-11-23T10 OPEN 1', '2026-11-23T11 CLOSED 1']);
  });
});

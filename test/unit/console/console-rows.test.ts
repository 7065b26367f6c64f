import { describe, expect, it } from 'vitest';
import { consoleEvent } from '../../../src/daemon/daemon-console.js';
import { environmentsPage } from '../../../src/console/dashboard-pages.js';
import { dashboardRows, statusCounts, type DashboardRow } from '../../../src/console/sync-rows.js';
import { countLevels, scaleTop, timelineSvg, timeTicks } from '../../../src/console/timeline.js';

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

describe('console timeline axes', () => {
  const HOUR = 3_600_000;
  const from = Date.UTC(2026, 10, 23, 10);

  it('the count scale tops at the largest hour rounded up to 1, 2 or 5 × 10ⁿ, labelled at 0, the middle when whole, and the top', () => {
    expect([0, 1, 2, 3, 5, 6, 7, 10, 11, 45, 101].map(scaleTop)).toEqual([1, 1, 2, 5, 5, 10, 10, 10, 20, 50, 200]);
    expect([1, 2, 5, 10, 20].map(countLevels)).toEqual([[0, 1], [0, 1, 2], [0, 5], [0, 5, 10], [0, 10, 20]]);
  });

  it('time ticks fall on whole UTC hours, a date at midnight, at most 12 over the window, never at its end', () => {
    const day = timeTicks(from, 24);
    expect(day.map((t) => t.label)).toEqual(['10:00', '12:00', '14:00', '16:00', '18:00', '20:00', '22:00', '24 Nov', '02:00', '04:00', '06:00', '08:00']);
    expect(day[0]?.at).toBe(from);
    expect(timeTicks(from, 168).map((t) => t.label)).toEqual(['24 Nov', '25 Nov', '26 Nov', '27 Nov', '28 Nov', '29 Nov', '30 Nov']);
    expect(timeTicks(from + HOUR / 2, 6).map((t) => t.label)).toEqual(['11:00', '12:00', '13:00', '14:00', '15:00', '16:00']);
    expect(timeTicks(from, 36).map((t) => t.label)).toEqual(['12:00', '15:00', '18:00', '21:00', '24 Nov', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00']);
    expect(timeTicks(Date.UTC(2026, 0, 31, 23), 2).map((t) => t.label)).toEqual(['23:00', '1 Feb']);
  });

  it('draws both axes as labels placed by percentage, and bars on the same scale', () => {
    const events = Array.from({ length: 9 }, (_, i) => consoleEvent({ id: String(i), startTime: from + (i < 3 ? 0 : HOUR), endTime: undefined, eventStatus: undefined, eventType: 'E', entityId: undefined, entityName: undefined, eventId: undefined }));
    const html = timelineSvg(events, { from, to: from + 4 * HOUR }, 'type', 'by type');
    expect([...html.matchAll(/<span class="tick" style="bottom:([\d.]+)%" data-count="(\d+)">(\d+)<\/span>/g)].map((m) => [m[1], m[2], m[3]])).toEqual([['0', '0', '0'], ['50', '5', '5'], ['100', '10', '10']]);
    expect([...html.matchAll(/<span class="tick" style="left:([\d.]+)%" data-time="([^"]+)">([^<]+)<\/span>/g)].map((m) => [m[1], m[3]])).toEqual([['0', '10:00'], ['25', '11:00'], ['50', '12:00'], ['75', '13:00']]);
    // 6 of a scale topping at 10 is 60 % of the 120 px plot.
    expect([...html.matchAll(/data-hour="[^"]+" data-series="E" data-count="(\d+)"/g)].map((m) => m[1])).toEqual(['3', '6']);
    expect(html).toMatch(/<rect class="bar" x="22" y="48" width="16" height="72"/);
    expect(html).toContain('<line class="grid" x1="0" y1="60" x2="80" y2="60"');
  });
});

describe('environment cards', () => {
  const row = (status: DashboardRow['status']): DashboardRow => ({ key: status, name: status, status, file: undefined, detail: '', change: undefined, problems: [], body: undefined });

  it('count each environment\'s dashboards per status, linking to them; none known, no counts', () => {
    expect(statusCounts([row('drifted'), row('synced'), row('synced'), row('live'), row('failed')])).toEqual([['synced', 2], ['drifted', 1], ['failed', 1], ['live', 1]]);
    const html = environmentsPage(
      [{ name: 'dev', target: '/e/dev' }, { name: 'prod', target: '/e/prod' }, { name: 'qa', target: '/e/qa' }],
      [[row('synced'), row('drifted'), row('synced')], [], undefined],
    );
    const card = (env: string): string => /<section class="card environment" data-env="([a-z]+)">[\s\S]*?<\/section>/g.exec(html.slice(html.indexOf(`data-env="${env}"`) - 40))?.[0] ?? '';
    expect(card('dev')).toContain('<a href="/ui/e/dev?status=synced"><span class="status status-synced" data-status="synced" data-count="2">2 synced</span></a> <a href="/ui/e/dev?status=drifted"><span class="status status-drifted" data-status="drifted" data-count="1">1 drifted</span></a>');
    expect(card('prod')).toContain('<p class="counts"><span class="muted">No dashboards.</span></p>');
    expect(card('qa')).not.toContain('class="counts"');
  });
});

import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '../../../src/console/console-data.js';
import { timelineSvg } from '../../../src/console/timeline.js';

const HOUR = 3_600_000;
const FROM = Date.UTC(2026, 10, 28, 10);
const WINDOW = { from: FROM, to: FROM + 2 * HOUR };
const event = (type: string, start: number, status: ConsoleEvent['status'] = 'OPEN'): ConsoleEvent => ({ id: `${type}-${start}`, type, start, end: undefined, status, entity: undefined });

describe('console timeline drawing', () => {
  it('colours event types from the palette in sorted order, wrapping after eight, and statuses by their meaning', () => {
    const types = ['T9', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8'];
    const svg = timelineSvg(types.map((t) => event(t, FROM)), WINDOW, 'type', 'by type');
    const colours = [...svg.matchAll(/<span class="key"><i style="background:(#\w+)"><\/i>(\w+)<\/span>/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(colours).toEqual(['T1 #0969da', 'T2 #bf8700', 'T3 #8250df', 'T4 #1a7f37', 'T5 #cf222e', 'T6 #57606a', 'T7 #bc4c00', 'T8 #1b7c83', 'T9 #0969da']);
    expect(svg).toContain('<span class="legend"><span class="key"><i style="background:#0969da"></i>T1</span> <span class="key">');
    const statuses = timelineSvg([event('A', FROM, 'OPEN'), event('A', FROM, 'CLOSED')], WINDOW, 'status', 'by status');
    expect([...statuses.matchAll(/background:(#\w+)"><\/i>(\w+)/g)].map((m) => `${m[2]} ${m[1]}`)).toEqual(['CLOSED #8c959f', 'OPEN #cf222e']);
  });

  it('draws only bars with events, ignores events outside the window, and labels the chart for screen readers', () => {
    const svg = timelineSvg([event('A', FROM), event('B', FROM + HOUR), event('A', FROM + 5 * HOUR), event('A', FROM - HOUR)], WINDOW, 'type', 'by type');
    const inner = /<svg [^>]*>([\s\S]*)<\/svg>/.exec(svg)?.[1] ?? '';
    expect(inner).toMatch(/^(<line class="grid"[^>]*\/>)+(<rect class="bar"[^>]*><title>[^<]*<\/title><\/rect>){2}$/);
    expect(svg).toContain('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 120" preserveAspectRatio="none" role="img" aria-label="by type">');
    expect(svg).toContain('<div class="chart"><div class="y-axis" aria-label="events per hour">');
    expect(svg).toContain('<div class="x-axis" aria-label="time (UTC)">');
    expect(svg.endsWith('</div></div></div></figure>')).toBe(true);
  });
});

import { escapeXml } from '../preview/svg-text.js';
import type { ConsoleEvent } from './console-data.js';

const HOUR = 3_600_000;
const PALETTE = ['#0969da', '#bf8700', '#8250df', '#1a7f37', '#cf222e', '#57606a', '#bc4c00', '#1b7c83'];
const STATUS_COLOURS: Record<string, string> = { OPEN: '#cf222e', CLOSED: '#8c959f' };
const [BAR_WIDTH, HEIGHT] = [20, 120];
/** Hours between time ticks: the first that gives at most MAX_TIME_TICKS over the window (24 h: every 3 h; a week: daily). */
const TICK_STEPS = [1, 2, 3, 6, 12, 24];
const MAX_TIME_TICKS = 12;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface Series {
  key: string;
  colour: string;
}

/**
 * Events per hour over [from, to) as stacked bars, one series per value of `group` (event type, or open/closed),
 * with a count scale on the left (0, half, top; gridlines at each) and a UTC time axis below (hour ticks, a date at
 * each midnight). The bars are SVG stretched to the page's width; the labels are HTML placed by percentage beside
 * it, so they keep the page's font size at any width. Each bar segment is a `<rect class="bar">` with its hour,
 * series and count as data attributes, so a test (or a reader's devtools) can read the numbers. Pure.
 */
export function timelineSvg(events: readonly ConsoleEvent[], window: { from: number; to: number }, group: 'type' | 'status', title: string): string {
  const hours = Math.max(1, Math.ceil((window.to - window.from) / HOUR));
  const keyOf = (e: ConsoleEvent): string => (group === 'type' ? e.type : e.status);
  const series = seriesOf(events.map(keyOf), group);
  const counts = Array.from({ length: hours }, () => new Map<string, number>());
  for (const event of events) {
    const hour = Math.floor((event.start - window.from) / HOUR);
    const bucket = counts[hour];
    if (bucket) bucket.set(keyOf(event), (bucket.get(keyOf(event)) ?? 0) + 1);
  }
  const top = scaleTop(Math.max(0, ...counts.map((bucket) => [...bucket.values()].reduce((a, b) => a + b, 0))));
  const width = hours * BAR_WIDTH;
  const bars = counts.flatMap((bucket, hour) => {
    let y = HEIGHT;
    return series.flatMap(({ key, colour }) => {
      const count = bucket.get(key) ?? 0;
      if (count === 0) return [];
      const h = Math.max(1, Math.round((count / top) * HEIGHT));
      y -= h;
      const start = new Date(window.from + hour * HOUR).toISOString().slice(0, 13);
      return [`<rect class="bar" x="${hour * BAR_WIDTH + 2}" y="${y}" width="${BAR_WIDTH - 4}" height="${h}" fill="${colour}" data-hour="${start}" data-series="${escapeXml(key)}" data-count="${count}"><title>${start}:00 ${escapeXml(key)}: ${count}</title></rect>`];
    });
  });
  const levels = countLevels(top);
  const grid = levels.map((level) => `<line class="grid" x1="0" y1="${HEIGHT - (level / top) * HEIGHT}" x2="${width}" y2="${HEIGHT - (level / top) * HEIGHT}" stroke="#d0d7de" vector-effect="non-scaling-stroke"/>`);
  const yAxis = levels.map((level) => `<span class="tick" style="bottom:${percent(level / top)}" data-count="${level}">${level}</span>`);
  const xAxis = timeTicks(window.from, hours).map(({ at, label }) => `<span class="tick" style="left:${percent((at - window.from) / (hours * HOUR))}" data-time="${new Date(at).toISOString()}">${label}</span>`);
  const legend = series.map(({ key, colour }) => `<span class="key"><i style="background:${colour}"></i>${escapeXml(key)}</span>`).join(' ');
  return `<figure class="timeline" data-group="${group}"><figcaption>${escapeXml(title)} <span class="legend">${legend}</span></figcaption>
<div class="chart"><div class="y-axis" aria-label="events per hour">${yAxis.join('')}</div><div class="plot">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${escapeXml(title)}">${grid.join('')}${bars.join('')}</svg>
<div class="x-axis" aria-label="time (UTC)">${xAxis.join('')}</div></div></div></figure>`;
}

/** The top of the count scale: the largest hourly total rounded up to 1, 2 or 5 × a power of ten (at least 1). */
export function scaleTop(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}

/** The labelled counts: 0, the middle when it is a whole number, and the top. */
export function countLevels(top: number): number[] {
  return top % 2 === 0 ? [0, top / 2, top] : [0, top];
}

/** Ticks on whole UTC hours that are multiples of the step (longer windows, longer steps): `15:00`, and at midnight the date (`28 Nov`). */
export function timeTicks(from: number, hours: number): { at: number; label: string }[] {
  const step = TICK_STEPS.find((s) => hours / s <= MAX_TIME_TICKS) ?? 24;
  const ticks: { at: number; label: string }[] = [];
  // The window's end is not labelled: a label there would hang off the chart's right edge.
  for (let at = Math.ceil(from / HOUR) * HOUR; at < from + hours * HOUR; at += HOUR) {
    const date = new Date(at);
    const hour = date.getUTCHours();
    if (hour % step !== 0) continue;
    ticks.push({ at, label: hour === 0 ? `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}` : `${String(hour).padStart(2, '0')}:00` });
  }
  return ticks;
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 10000) / 100}%`;
}

function seriesOf(keys: readonly string[], group: 'type' | 'status'): Series[] {
  const distinct = [...new Set(keys)].sort();
  return distinct.map((key, i) => ({ key, colour: group === 'status' ? (STATUS_COLOURS[key] ?? '#57606a') : (PALETTE[i % PALETTE.length] ?? '#57606a') }));
}

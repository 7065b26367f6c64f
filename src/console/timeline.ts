import { escapeXml } from '../preview/svg-text.js';
import type { ConsoleEvent } from './console-data.js';

const HOUR = 3_600_000;
const PALETTE = ['#0969da', '#bf8700', '#8250df', '#1a7f37', '#cf222e', '#57606a', '#bc4c00', '#1b7c83'];
const STATUS_COLOURS: Record<string, string> = { OPEN: '#cf222e', CLOSED: '#8c959f' };

export interface Series {
  key: string;
  colour: string;
}

/**
 * Events per hour over [from, to) as stacked bars, one series per value of `group` (event type, or open/closed).
 * Each bar segment is a `<rect class="bar">` with its hour, series and count as data attributes, so a test (or a
 * reader's devtools) can read the numbers without decoding pixels. Pure.
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
  const max = Math.max(1, ...counts.map((bucket) => [...bucket.values()].reduce((a, b) => a + b, 0)));
  const [width, height, pad] = [hours * 20, 120, 16];
  const bars = counts.flatMap((bucket, hour) => {
    let y = height;
    return series.flatMap(({ key, colour }) => {
      const count = bucket.get(key) ?? 0;
      if (count === 0) return [];
      const h = Math.max(1, Math.round((count / max) * (height - pad)));
      y -= h;
      const start = new Date(window.from + hour * HOUR).toISOString().slice(0, 13);
      return [`<rect class="bar" x="${hour * 20 + 2}" y="${y}" width="16" height="${h}" fill="${colour}" data-hour="${start}" data-series="${escapeXml(key)}" data-count="${count}"><title>${start}:00 ${escapeXml(key)}: ${count}</title></rect>`];
    });
  });
  const legend = series.map(({ key, colour }) => `<span class="key"><i style="background:${colour}"></i>${escapeXml(key)}</span>`).join(' ');
  return `<figure class="timeline" data-group="${group}"><figcaption>${escapeXml(title)} <span class="legend">${legend}</span></figcaption>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${escapeXml(title)}"><line x1="0" y1="${height - 0.5}" x2="${width}" y2="${height - 0.5}" stroke="#d0d7de"/>${bars.join('')}</svg></figure>`;
}

function seriesOf(keys: readonly string[], group: 'type' | 'status'): Series[] {
  const distinct = [...new Set(keys)].sort();
  return distinct.map((key, i) => ({ key, colour: group === 'status' ? (STATUS_COLOURS[key] ?? '#57606a') : (PALETTE[i % PALETTE.length] ?? '#57606a') }));
}

import { describe, expect, it } from 'vitest';
import { dashboardsOf } from '../../../src/daemon/daemon-console.js';
import { DaemonStatus } from '../../../src/daemon/daemon-status.js';
import { packLayout, unpackLayout } from '../../../src/daemon/packed-layout.js';
import { readPreviewDashboard } from '../../../src/preview/preview-model.js';

/** A classic dashboard of `tiles` markdown tiles, as a file would hold it. */
function dashboard(tiles: number): Record<string, unknown> {
  return {
    dashboardMetadata: { name: 'Checkout', owner: 'shop@example.com', dashboardFilter: { timeframe: '-2h' } },
    tiles: Array.from({ length: tiles }, (_, i) => ({
      name: 'Markdown',
      tileType: 'MARKDOWN',
      configured: true,
      bounds: { top: 38 * i, left: 0, width: 304, height: 152 },
      tileFilter: {},
      markdown: `## Step ${i}\nWhat the checkout does at step ${i}, and who to call when it breaks.`,
    })),
  };
}

describe('packLayout', () => {
  it('gives back exactly the layout it was given, undefined members and nesting included', () => {
    const layout = readPreviewDashboard(dashboard(3));
    const withUndefined = { ...layout, extra: undefined, nested: { list: [1, 'two', null, { deep: true }] } };
    const back = unpackLayout(packLayout(withUndefined));
    expect(back).toStrictEqual(withUndefined);
    expect(Object.hasOwn(back as object, 'extra')).toBe(true);
  });

  it('gives a fresh copy on every unpack: changing one leaves the packed layout as it was', () => {
    const packed = packLayout({ tiles: [{ name: 'a' }] });
    const first = unpackLayout(packed) as { tiles: { name: string }[] };
    (first.tiles[0] as { name: string }).name = 'changed';
    expect(unpackLayout(packed)).toStrictEqual({ tiles: [{ name: 'a' }] });
  });

  it('holds a 20-tile layout in a small fraction of its serialised size, as a string on V8 heap', () => {
    const layout = readPreviewDashboard(dashboard(20));
    const packed = packLayout(layout);
    expect(typeof packed).toBe('string');
    // Deflated: a layout repeats its keys and shapes tile after tile.
    expect(packed.length).toBeLessThan(JSON.stringify(layout).length / 3);
  });

  it('packs the values a platform document layout holds (its whole body)', () => {
    const body = { document: { name: 'Runbook', type: 'notebook' }, content: { sections: [{ id: 's1', markdown: 'x'.repeat(5000) }] } };
    expect(unpackLayout(packLayout(body))).toStrictEqual(body);
    expect(packLayout(body).length).toBeLessThan(1000);
  });
});

describe('the daemon console', () => {
  it('shows each dashboard with the layout the pass packed, unpacked', () => {
    const status = new DaemonStatus();
    const layout = readPreviewDashboard(dashboard(2));
    status.show('dashboards/checkout.yaml', { id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Checkout', contentHash: 'h1', layout: packLayout(layout) });
    const shown = dashboardsOf(status);
    if (shown.kind !== 'desired') throw new Error('the daemon console shows desired state');
    expect(shown.shown?.['c0ffee00-0000-4000-8000-000000000001']?.body()).toStrictEqual(layout);
    expect(shown.changes).toStrictEqual([{ action: 'unchanged', id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Checkout', file: 'dashboards/checkout.yaml' }]);
  });
});

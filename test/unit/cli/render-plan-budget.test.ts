import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { colorFor } from '../../../src/cli/render/colors.js';
import { COMMENT_LIMIT } from '../../../src/cli/render/markdown-budget.js';
import { renderPlanMarkdown } from '../../../src/cli/render/render-markdown.js';
import { renderPlanText } from '../../../src/cli/render/render-text.js';
import { buildPlan, type Plan } from '../../../src/plan/build-plan.js';
import { withOwnershipTag } from '../../../src/dashboards/ownership.js';
import type { Dashboard, LiveDashboard } from '../../../src/schema/dashboard.js';

const TAG = 'managed-by:dashcd';
const idOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function board(n: number, shift: number): Dashboard {
  return {
    dashboardMetadata: { name: `Service ${n} overview`, owner: 'team@example.com' },
    tiles: Array.from({ length: 12 }, (_, k) => ({
      name: `Tile ${k} of service ${n}`,
      tileType: 'MARKDOWN' as const,
      bounds: { top: k * 38 + shift, left: shift, width: 304, height: 38 },
      markdown: `## Tile ${k}`,
    })),
  };
}

/** `count` dashboards, each with all 12 tiles moved. */
function movedTilesPlan(count: number): Plan {
  const ids = Array.from({ length: count }, (_, n) => idOf(n));
  return buildPlan({
    desired: ids.map((id, n) => ({ id, file: `dashboards/service-${n}.yaml`, name: `Service ${n} overview`, body: board(n, 76) })),
    live: new Map(ids.map((id, n) => [id, withOwnershipTag({ ...board(n, 0), id } as LiveDashboard, TAG)])),
    liveOwned: [],
    ownershipTag: TAG,
    ignore: [],
    kind: classicDashboards,
    target: 'https://abc123.live.dynatrace.com',
  });
}

describe('markdown plan within a pull-request comment', () => {
  it('120 dashboards with 12 moved tiles each: under 65,536 characters, every dashboard in the table, shortened diffs counted', () => {
    const plan = movedTilesPlan(120);
    expect(plan.summary.update).toBe(120);
    const md = renderPlanMarkdown(plan);
    expect(md.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    for (let n = 0; n < 120; n++) expect(md).toContain(`| \`~ update\` | Service ${n} overview | <code>dashboards/service-${n}.yaml</code> |`);
    const whole = (md.match(/```diff/g) ?? []).length;
    const shortened = (md.match(/Diff shortened to fit the comment/g) ?? []).length;
    expect(whole).toBeGreaterThan(0);
    expect(whole + shortened).toBe(120);
    expect(md).toContain(`**${shortened} of 120 diffs shortened** to fit a pull-request comment (65,536 characters). The full plan: \`dashcd plan --output json\``);
    // Whole diffs come first, in plan order.
    expect(md.indexOf('Diff shortened')).toBeGreaterThan(md.lastIndexOf('```diff'));
  });

  it('points to the file --out wrote, and says nothing about shortening when everything fits', () => {
    const big = renderPlanMarkdown(movedTilesPlan(120), { fullPlan: 'plan.json' });
    expect(big).toContain('The full plan: <code>plan.json</code>.');
    const small = renderPlanMarkdown(movedTilesPlan(3));
    expect(small).not.toContain('shortened');
    expect((small.match(/```diff/g) ?? []).length).toBe(3);
  });

  it('complete (an --out .md file): every diff whole, past the comment budget, nothing said about shortening', () => {
    const md = renderPlanMarkdown(movedTilesPlan(120), { complete: true });
    expect(md.length).toBeGreaterThan(COMMENT_LIMIT);
    expect((md.match(/```diff/g) ?? []).length).toBe(120);
    expect(md).not.toContain('shortened');
  });

  it('stays under the limit even when the table alone would not fit', () => {
    const md = renderPlanMarkdown(movedTilesPlan(1500));
    expect(md.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(md).toMatch(/\| … \| \d+ more rows not shown \| \|/);
  });
});

describe('colours', () => {
  const tty = Object.assign(new Writable(), { isTTY: true });
  const pipe: { isTTY?: boolean } = new Writable() as { isTTY?: boolean };

  it('are used at a terminal only, and never with NO_COLOR', () => {
    expect(colorFor(tty, {})).toBe(true);
    expect(colorFor(pipe, {})).toBe(false);
    expect(colorFor(tty, { NO_COLOR: '1' })).toBe(false);
  });

  it('paint create green, update yellow, delete and orphan red; plain text has no escape codes', () => {
    const plan = buildPlan({
      desired: [
        { id: idOf(1), file: 'dashboards/new.yaml', name: 'New', body: board(1, 0) },
        { id: idOf(2), file: 'dashboards/moved.yaml', name: 'Moved', body: board(2, 76) },
      ],
      live: new Map([[idOf(2), withOwnershipTag({ ...board(2, 0), id: idOf(2) } as LiveDashboard, TAG)]]),
      liveOwned: [{ id: idOf(3), name: 'Gone' }, { id: idOf(4), name: 'Also gone' }],
      ownershipTag: TAG,
      ignore: [],
      kind: classicDashboards,
      target: 't',
      prune: { maxDelete: 5, from: 'flag' },
    });
    const colored = renderPlanText(plan, { color: true });
    expect(colored).toContain('\u001b[32m+ create  New');
    expect(colored).toContain('\u001b[33m~ update  Moved');
    expect(colored).toContain('\u001b[33m~ tiles[0].bounds.left: 0 → 76\u001b[39m');
    expect(colored).toContain(`\u001b[31m- delete  Gone  (id ${idOf(3)})\u001b[39m`);
    const kept = renderPlanText({ ...plan, changes: plan.changes.map((c) => (c.action === 'delete' ? { ...c, action: 'orphan' as const } : c)) }, { color: true });
    expect(kept).toContain('\u001b[31m- orphan  Gone');
    expect(renderPlanText(plan)).not.toContain('\u001b[');
  });
});

/**
 * Sample dashboard YAML for CLI tests. Text, not objects: the tests are about files in `dashboards/`, and some
 * assert line and column positions, so every helper here produces exactly the text the tests used to inline.
 */

export interface MarkdownDashboard {
  name: string;
  owner: string;
  /** Written as-is after `markdown: `, so a caller can quote it (`'"Checkout funnel"'`) or not. */
  markdown: string;
  /** Pins the dashboard id with a leading `id:` line; without it the id comes from the file path. */
  id?: string;
}

/** A dashboard with one MARKDOWN tile: the smallest valid dashboard with a tile. */
export function markdownDashboard(d: MarkdownDashboard): string {
  const id = d.id === undefined ? '' : `id: ${d.id}\n`;
  return `${id}dashboardMetadata:
  name: ${d.name}
  owner: ${d.owner}
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: ${d.markdown}
`;
}

/** The one dashboard of the single-file CLI tests (`dashboards/checkout.yaml`). */
export const CHECKOUT_DASHBOARD = markdownDashboard({ name: 'Checkout', owner: 'shop@example.com', markdown: '"Checkout funnel"' });

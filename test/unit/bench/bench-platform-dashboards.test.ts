import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generatePlatformDashboard, platformDashboardYaml } from '../../../bench/data/platform-dashboards.js';
import { DashboardDocumentFile } from '../../../src/schema/document-content.js';

const SEED = 20_240_601;

describe("the bench's platform dashboards", () => {
  it('are pulled-form files the schema takes: document: first with a pinned id, 20 tiles each with a layout, a few variables', () => {
    for (let i = 0; i < 20; i++) {
      const file = parse(platformDashboardYaml(SEED, i)) as Record<string, unknown>;
      expect(Object.keys(file)[0]).toBe('document');
      expect(DashboardDocumentFile.safeParse(file).success).toBe(true);
      const { document, tiles, layouts, variables } = file as { document: { id: string }; tiles: object; layouts: object; variables: unknown[] };
      expect(document.id).toMatch(/^bench-\d+-[0-9a-f]{12}$/);
      expect(Object.keys(tiles)).toHaveLength(20);
      expect(Object.keys(layouts)).toEqual(Object.keys(tiles));
      expect(variables.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('are the same on every run and weigh about what the corpus median does (28 KB of JSON)', () => {
    expect(generatePlatformDashboard(SEED, 7)).toEqual(generatePlatformDashboard(SEED, 7));
    const sizes = Array.from({ length: 20 }, (_, i) => JSON.stringify(generatePlatformDashboard(SEED, i)).length);
    expect(Math.min(...sizes)).toBeGreaterThan(20_000);
    expect(Math.max(...sizes)).toBeLessThan(40_000);
  });
});

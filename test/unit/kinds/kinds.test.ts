import { describe, expect, it } from 'vitest';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { defineKind } from '../../../src/kinds/kind.js';

describe('a kind is a value', () => {
  it('refuses a kind whose data is wrong when it is defined, not later as files that never match', () => {
    const info = { ...classicDashboards.info, extensions: ['yaml'] };
    expect(() => defineKind({ ...classicDashboards, info })).toThrow(/extensions/);
    expect(() => defineKind({ ...classicDashboards, info: { ...classicDashboards.info, plural: '' } })).toThrow(/plural/);
    expect(defineKind(classicDashboards)).toBe(classicDashboards);
  });

  it('classic dashboards: the files its data names are the files it detects, in any case', () => {
    for (const extension of classicDashboards.info.extensions) {
      expect(classicDashboards.isFile(`team/api${extension}`)).toBe(true);
      expect(classicDashboards.isFile(`team/api${extension.toUpperCase()}`)).toBe(true);
    }
    expect(classicDashboards.isFile('team/README.md')).toBe(false);
    expect(classicDashboards.isFile('team/api.yaml.bak')).toBe(false);
  });

  it('classic dashboards: its JSON Schema carries the id its data names, and its schema is the files’ schema', () => {
    expect(classicDashboards.jsonSchema()).toMatchObject({ $id: classicDashboards.info.schemaId });
    expect(classicDashboards.schema.safeParse({ dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [] }).success).toBe(true);
    expect(classicDashboards.schema.safeParse({ tiles: [] }).success).toBe(false);
  });

  it('classic dashboards: an id derived from the path alone, the mark added once, and the mark and service-filled values not a difference', () => {
    expect(classicDashboards.deriveId('team/api.yaml')).toBe(classicDashboards.deriveId('team/api.yaml'));
    expect(classicDashboards.deriveId('team/api.yaml')).not.toBe(classicDashboards.deriveId('team/web.yaml'));
    const body = { dashboardMetadata: { name: 'n', owner: 'o', tags: ['x'] }, tiles: [] };
    const written = (b: Dashboard): Dashboard => classicDashboards.written({ id: 'i', file: 'f', name: 'n', body: b }, 'managed-by:dashcd').desired as Dashboard;
    const marked = written(body);
    expect(marked).toEqual({ id: 'i', dashboardMetadata: { name: 'n', owner: 'o', tags: ['x', 'managed-by:dashcd'] }, tiles: [] });
    expect(written(marked)).toEqual(marked);
    expect(classicDashboards.isOwned(marked, 'managed-by:dashcd')).toBe(true);
    expect(classicDashboards.isOwned(body, 'managed-by:dashcd')).toBe(false);
    const live = { ...body, id: 'server-owned', metadata: { configurationVersions: [1] } };
    expect(classicDashboards.comparedForm(live, [])).toEqual(classicDashboards.comparedForm(body, []));
  });

  it('classic dashboards: draws from the layout part of a body only', () => {
    expect(classicDashboards.layout({ dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [], extra: 1 })).not.toHaveProperty('extra');
  });
});

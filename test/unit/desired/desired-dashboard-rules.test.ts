import { beforeEach, describe, expect, it, vi } from 'vitest';

/*
 * dashboard-rules.ts is imported inside each test, not at the top of the file: its constants and `schemaErrorMap`
 * are made while the module loads, so only a test that loads it sees a change to them (a mutation run counts the
 * module's loading against the test running at that moment: each test loads it afresh). Expected texts are the
 * docs' (docs/files-and-plans.md), written out here.
 */

beforeEach(() => {
  vi.resetModules();
});

const NOT_A_DASHBOARD = 'not a dashboard: expected a mapping with dashboardMetadata and tiles';

describe('dashboard rules, as loaded', () => {
  it('names what a dashboard file must hold', async () => {
    const rules = await import('../../../src/desired/dashboard-rules.js');
    expect(rules.NOT_A_DASHBOARD).toBe(NOT_A_DASHBOARD);
    const { locateProblems } = await import('../../../src/desired/locate-problems.js');
    expect(locateProblems('name: CPU\n')).toStrictEqual({ ok: false, problems: [{ line: 1, col: 1, path: '', message: NOT_A_DASHBOARD }] });
  });

  it('calls a missing member Required, in the map and in a checked file', async () => {
    const { schemaErrorMap } = await import('../../../src/desired/dashboard-rules.js');
    expect(schemaErrorMap({ code: 'invalid_type', expected: 'string', input: undefined } as never)).toBe('Required');
    expect(schemaErrorMap({ code: 'invalid_type', expected: 'string', input: null } as never)).toBeUndefined();
    const { checkDashboardSource } = await import('../../../src/desired/check-file.js');
    expect(checkDashboardSource('dashboardMetadata:\n  owner: ops\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [{ line: 2, col: 3, path: 'dashboardMetadata.name', message: 'Required' }],
    });
  });

  it('calls only a mapping dashboard-shaped: not a function, even one with a tiles member', async () => {
    const { isDashboardShaped } = await import('../../../src/desired/dashboard-rules.js');
    expect(isDashboardShaped(Object.assign(() => undefined, { tiles: [], dashboardMetadata: {} }))).toBe(false);
    expect(isDashboardShaped({ tiles: [], dashboardMetadata: {} })).toBe(true);
  });
});

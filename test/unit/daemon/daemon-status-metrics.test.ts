import { describe, expect, it } from 'vitest';
import { DaemonStatus } from '../../../src/daemon/daemon-status.js';

/** The series of one metric as the exposition format writes them: `name{labels} value`. */
function seriesOf(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('a loop’s failure and drift counters', () => {
  it('start with a zero series for each kind and none without kind, and keep both once one kind counts', () => {
    const status = new DaemonStatus({ env: 'prod' });
    for (const name of ['dashcd_write_failures_total', 'dashcd_drift_found_total']) {
      expect(seriesOf(status.registry.render(), name)).toEqual([`${name}{env="prod",kind="dashboard"} 0`, `${name}{env="prod",kind="document"} 0`]);
    }
    status.driftFound('document');
    status.recordWrite({ action: 'update', id: 'a', name: 'A', file: 'a.yaml', status: 'failed', error: 'x' }, 'dashboard');
    const text = status.registry.render();
    expect(seriesOf(text, 'dashcd_drift_found_total')).toEqual(['dashcd_drift_found_total{env="prod",kind="dashboard"} 0', 'dashcd_drift_found_total{env="prod",kind="document"} 1']);
    expect(seriesOf(text, 'dashcd_write_failures_total')).toEqual(['dashcd_write_failures_total{env="prod",kind="dashboard"} 1', 'dashcd_write_failures_total{env="prod",kind="document"} 0']);
  });
});

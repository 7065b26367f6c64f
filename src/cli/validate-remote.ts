import type { ApiClient } from '../client/api-client.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { mapConcurrent } from '../lib/concurrency.js';
import type { CommandIo } from './command.js';

/**
 * `validate --remote`: each classic dashboard through the target's `/validator`. The target's verdict has no source
 * positions: its violations name the file without a line (as apply's do); with `env`, each names that environment.
 * Documents have no validator (the Document service stores content as it is): their schemas are the check.
 */
export async function validateRemote(dashboards: readonly DesiredDashboard[], api: ApiClient, io: CommandIo, env?: string): Promise<Diagnostic[]> {
  const classic = dashboards.filter((d) => d.kind === undefined);
  const results = await mapConcurrent(classic, 8, async (d) => {
    const outcome = await api.dashboards.validate({ ...d.body, id: d.id }, d.id);
    if (outcome.valid) return [];
    const violations = outcome.violations.length > 0 ? outcome.violations : [{ path: '', message: outcome.message }];
    return violations.map((v) => ({ file: d.file, line: 0, col: 0, path: v.path ?? '', message: `${v.message ?? 'invalid'} (target validator)`, ...(env !== undefined ? { env } : {}) }));
  }, io.signal);
  return results.flatMap((r) => r ?? []);
}

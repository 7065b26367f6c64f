import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadProjectConfigFor } from '../../config/project-config.js';
import { pullDashboards, type PullOutcome } from '../../pull/pull-dashboards.js';
import { parseDashboardId } from '../../schema/ids.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo } from '../command.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { dataFlag, dirFlag, targetFlag } from '../common-flags.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { withTarget } from '../with-target.js';

/** Dashboards the service owns itself; onboarding them would fight the service. */
const SERVICE_OWNER = 'Dynatrace';

export const pullCommand = defineCommand({
  path: ['pull'],
  summary: 'Write live dashboards into the folder as YAML (onboard existing dashboards)',
  description: 'Server-owned fields are dropped and keys put in a stable order; the id is kept, so plan afterwards shows no\nchange. A file with local edits is never overwritten without --force.',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    all: { type: 'boolean', description: 'Pull every dashboard on the target (except the service’s own presets)' },
    force: { type: 'boolean', description: 'Overwrite files that differ from the live dashboard' },
  },
  positionals: [{ name: 'id', description: 'Dashboard ids to pull', variadic: true }],
  quietLogs: true,
  examples: ['dashcd pull 6a98d7bc-abb9-44f8-ae6a-73e68e71812a', 'dashcd pull --all --dir dashboards/imported'],
  async run({ flags, positionals }, io) {
    const all = booleanFlag(flags, 'all');
    if (all === positionals.length > 0) throw new UsageError('give dashboard ids or --all (not both)');
    const notIds = positionals.filter((id) => parseDashboardId(id) === undefined);
    if (notIds.length > 0) throw new UsageError(`not a dashboard id (a UUID): ${notIds.join(', ')}`);
    const dir = resolve(io.cwd, stringFlag(flags, 'dir') ?? 'dashboards');
    const project = await loadProjectConfigFor(dir, io.cwd);
    if (project.diagnostics.length > 0) {
      printDiagnostics(project.diagnostics, io);
      return ExitCode.InvalidDesiredState;
    }
    await mkdir(dir, { recursive: true });
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data') }, io, async (target) => {
      const ids = all
        ? (await target.client.dashboards.list()).filter((s) => s.owner !== SERVICE_OWNER).map((s) => s.id)
        : positionals;
      const outcomes = await pullDashboards({
        api: target.client,
        dir,
        cwd: io.cwd,
        ids,
        force: booleanFlag(flags, 'force'),
        ownershipTag: project.config.ownershipTag,
        ignore: project.config.ignore,
        signal: io.signal,
      });
      const problems = reportPulls(outcomes, target.label, io);
      if (problems > 0) throw new CliError(`${problems} dashboard(s) not pulled`, ExitCode.Unexpected);
      return ExitCode.Success;
    });
  },
});

/** One line per dashboard: pulled and up-to-date ones on stdout, the ones left alone on stderr; returns how many. */
function reportPulls(outcomes: readonly PullOutcome[], targetLabel: string, io: CommandIo): number {
  let problems = 0;
  for (const o of outcomes) {
    if (o.status === 'not-found') {
      problems++;
      io.stderr.write(`✗ ${o.id}: not found on ${targetLabel}\n`);
    } else if (o.status === 'kept-local-edits') {
      problems++;
      io.stderr.write(`✗ ${o.file} differs from the live dashboard (local edits?); not overwritten (use --force)\n`);
    } else io.stdout.write(`${o.status === 'written' ? '↓ pulled' : '= up to date'}  ${o.id}  ${o.file}\n`);
  }
  return problems;
}

import { listEnvironments } from '../../archive/archive-layout.js';
import { archiveStats, type ArchiveStats } from '../../archive/query-archive.js';
import { defineCommand, stringFlag } from '../command.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { badLineReporter, checkArchive, timeRange, toFlag } from './events-query.js';
import { archiveFlag } from '../common-flags.js';
import { archiveDirOf } from '../data-dir-default.js';
import { count } from '../diagnostics-output.js';
import { printable } from '../../lib/printable.js';

export const eventsStatsCommand = defineCommand({
  path: ['events', 'stats'],
  summary: 'Count archived events by type, status and day',
  description: 'Each event counts once, by its newest version; "versions" counts every archived line of the events counted.\nAn --env or --archive that names nothing is exit 64.',
  flags: {
    archive: archiveFlag,
    env: { type: 'string', description: 'Only this environment folder (default: each one)', valueName: 'id' },
    from: { type: 'string', description: 'Events starting at or after (7d, 2024-05-01, epoch ms)', valueName: 'time' },
    to: toFlag,
    format: { type: 'string', description: 'text or json', default: 'text', valueName: 'format' },
  },
  examples: ['dashcd events stats', 'dashcd events stats --env prod --from 30d --format json'],
  async run({ flags }, io) {
    const format = stringFlag(flags, 'format') ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got '${format}'`);
    const range = timeRange(flags, Date.now());
    const archiveDir = await archiveDirOf(stringFlag(flags, 'archive'), io.cwd, 'read');
    const envFlag = stringFlag(flags, 'env');
    await checkArchive(archiveDir, envFlag);
    const envs = envFlag ? [envFlag] : await listEnvironments(archiveDir);
    const results: Record<string, ArchiveStats> = {};
    for (const env of envs) {
      results[env] = await archiveStats({
        archiveDir,
        env,
        ...range,
        signal: io.signal,
        onBadLine: badLineReporter(io),
      });
    }
    if (format === 'json') io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    else if (envs.length === 0) io.stdout.write(`no archived events in ${archiveDir}\n`);
    else for (const [env, stats] of Object.entries(results)) io.stdout.write(renderStats(env, stats));
    return ExitCode.Success;
  },
});

/**
 * The environment folder's name and the counted statuses, types and days are the archive's, which may be a third
 * party's: made `printable` (one space for each control character, so the columns stay aligned).
 */
function renderStats(env: string, stats: ArchiveStats): string {
  const lines = [`${printable(env)}: ${count(stats.events, 'event')} (${count(stats.versions, 'version')})`];
  const section = (title: string, counts: Record<string, number>, byCount: boolean): void => {
    const entries = Object.entries(counts)
      .map(([key, count]): [string, number] => [printable(key), count])
      .sort(byCount ? (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]) : (a, b) => a[0].localeCompare(b[0]));
    const width = Math.max(0, ...entries.map(([key]) => key.length));
    lines.push(`  by ${title}:`, ...entries.map(([key, count]) => `    ${key.padEnd(width)}  ${String(count).padStart(8)}`));
  };
  section('status', stats.byStatus, true);
  section('type', stats.byType, true);
  section('day', stats.byDay, false);
  return `${lines.join('\n')}\n`;
}

import { ApiError } from '../../client/errors.js';
import { documentsOf } from '../../kinds/platform-documents.js';
import { printable } from '../../lib/printable.js';
import { resolve } from 'node:path';
import { loadProjectConfigFor } from '../../config/project-config.js';
import { declaredEnvironments } from '../../environments/environment.js';
import { loadEnvironmentState, loadFolderState } from '../../reconcile/desired-state.js';
import { defineCommand, stringFlag, type CommandIo, type FlagSpec, type FlagValues } from '../command.js';
import { dashboardsRootFor } from '../dashboards-root.js';
import { dataFlag, dirFlag, targetFlag } from '../common-flags.js';
import { envFlag } from '../environment-choice.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { withOneTarget } from '../one-target.js';

/** The kinds dashcd keeps: a trash also holds other apps' documents (launchpads…), which are none of its business. */
const KEPT_TYPES = new Set(['dashboard', 'notebook']);

const flags: Record<string, FlagSpec> = {
  dir: dirFlag,
  target: targetFlag,
  data: dataFlag,
  env: { ...envFlag, description: 'The one environment of dashcd.yaml whose trash to use' },
};

const TRASH_NOTE =
  'The Document service keeps a deleted document in its owner’s trash for 30 days. A prune moves a platform dashboard or\n' +
  'notebook there (never purged by dashcd); the trash dashcd sees is that of the identity it runs as, so run it as its own\n' +
  'service user (an OAuth client) and the trash holds exactly what it deleted.';

export const trashListCommand = defineCommand({
  path: ['trash', 'list'],
  summary: 'List the platform dashboards and notebooks in the trash (what a prune moved there)',
  description: TRASH_NOTE,
  flags,
  quietLogs: true,
  examples: ['dashcd trash list', 'dashcd trash list --env prod'],
  async run(args, io) {
    return withOneTarget(args.flags, io, 'trash list', async (target) => {
      const trashed = (await documentsOf(target.client).trash.list()).filter((d) => KEPT_TYPES.has(d.type));
      for (const d of trashed) {
        io.stdout.write(`${d.id}  ${d.type.padEnd(9)}  ${printable(d.name)}  (deleted ${d.deletionInfo.deletedTime} by ${printable(d.deletionInfo.deletedBy)})\n`);
      }
      io.stderr.write(`${trashed.length} in the trash of ${target.label}${trashed.length > 0 ? '; dashcd trash restore <id> brings one back' : ''}\n`);
      return ExitCode.Success;
    });
  },
});

export const trashRestoreCommand = defineCommand({
  path: ['trash', 'restore'],
  summary: 'Bring platform dashboards or notebooks back from the trash',
  description:
    `${TRASH_NOTE}\n\n` +
    'A restored document keeps dashcd’s ownership mark: put its file back in the dashboards folder (git revert, or\n' +
    '`dashcd pull <id>`) before the next apply with pruning, or that prune moves it to the trash again.\n' +
    'Exit 0 when every id was restored; 1 when one was not in the trash (one line each on stderr).',
  flags,
  positionals: [{ name: 'id', description: 'Ids of documents in the trash', variadic: true, required: true }],
  quietLogs: true,
  examples: ['dashcd trash restore triage-3c1f0a9b2d4e5', 'dashcd trash restore --env prod checkout-9f0e1d2c3b4a5'],
  async run({ flags: given, positionals }, io) {
    if (positionals.length === 0) throw new UsageError('give the ids of the documents to restore (dashcd trash list shows them)');
    return withOneTarget(given, io, 'trash restore', async (target) => {
      const documents = documentsOf(target.client);
      let missing = 0;
      const restored: string[] = [];
      for (const id of positionals) {
        try {
          await documents.trash.restore(id);
          io.stdout.write(`↺ restored  ${id}\n`);
          restored.push(id);
        } catch (error) {
          if (!(error instanceof ApiError) || error.status !== 404) throw error;
          missing++;
          io.stderr.write(`dashcd trash restore: ${id} is not in the trash of ${target.label}\n`);
        }
      }
      // One whose file is gone is an orphan the next prune trashes again; one whose file is there is simply back.
      const orphans = await withoutFile(restored, given, io, target.env);
      if (orphans.length > 0) {
        const [one, they] = orphans.length === 1 ? ['has', 'it is an orphan until its file is back'] : ['have', 'each is an orphan until its file is back'];
        io.stderr.write(`note: ${orphans.map(printable).join(', ')} ${one} no valid file in the dashboards folder: ${they} (git revert, or 'dashcd pull <id>'); an apply with pruning would move it to the trash again\n`);
      }
      return missing > 0 ? ExitCode.Unexpected : ExitCode.Success;
    });
  },
});

/**
 * The restored ids no file of the dashboards folder claims, as the target's environment renders the files (with
 * environments in dashcd.yaml, that one's ids). A folder that cannot be read says nothing of any: all are named.
 */
async function withoutFile(restored: readonly string[], flags: FlagValues, io: CommandIo, env: string): Promise<string[]> {
  if (restored.length === 0) return [];
  const given = stringFlag(flags, 'dir');
  // The root a --dir lies in (ids derive from paths below it), as withOneTarget finds it.
  const source = { dir: await dashboardsRootFor(given, io.cwd), cwd: io.cwd, git: 'unread' as const };
  // One read, as the project is: with environments, the files as the target's environment renders them.
  const { config } = await loadProjectConfigFor(resolve(io.cwd, source.dir), io.cwd);
  const read = declaredEnvironments(config).length > 0 ? await loadEnvironmentState(source, env) : await loadFolderState(source, {});
  const files = read.kind === 'loaded' ? read.state.desired.dashboards : (read.desired?.dashboards ?? []);
  const claimed = new Set(files.filter((file) => file.kind === 'document').map((file) => file.id));
  return restored.filter((id) => !claimed.has(id));
}

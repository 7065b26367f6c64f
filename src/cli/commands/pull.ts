import { rmdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pullDashboards, type PullOutcome } from '../../pull/pull-dashboards.js';
import { pullableDocumentIds, pullDocuments } from '../../pull/pull-documents.js';
import { KINDS } from '../../kinds/kinds.js';
import { documentsOf } from '../../kinds/platform-documents.js';
import { isDocumentId } from '../../schema/documents.js';
import { parseDashboardId } from '../../schema/ids.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { dataFlag, dirFlag, targetFlag } from '../common-flags.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { dashboardsRootFor, isWithin } from '../dashboards-root.js';
import { withTarget } from '../with-target.js';
import { envFlag, environmentMode } from '../environment-choice.js';
import { pullEnvironment, refuseDirOutsideProject, type PulledEnvironment } from '../pull-environment.js';
import type { TargetSession } from '../target.js';
import { shownPath } from '../../lib/shown-path.js';
import { printable } from '../../lib/printable.js';
import { makeDirs } from '../../lib/make-dirs.js';
import { requireRealFolders } from '../real-folder.js';

/** Dashboards the service owns itself; onboarding them would fight the service. */
const SERVICE_OWNER = 'Dynatrace';

export const pullCommand = defineCommand({
  path: ['pull'],
  summary: 'Write live dashboards and notebooks into the folder as YAML (onboard existing ones)',
  description:
    'Server-owned fields are dropped and keys put in a stable order; the id is kept. A pulled dashboard is not yet\n' +
    'owned by dashcd (prune never deletes it), so plan afterwards shows it as adopt (the ownership tag is its only\n' +
    'change); with --adopt pull also writes the tag to each pulled dashboard, as apply would, and plan shows no change.\n' +
    'A dashboard a file already claims anywhere in the dashboards root that holds --dir (the folder next to\n' +
    'dashcd.yaml, else dashboards/) is refreshed in that file, never copied into --dir; a --dir outside every root\n' +
    '(imported/ beside dashboards/) is a dashboards root of its own, which plan reads only with --dir, and gets a copy\n' +
    'of each. A file without an `id` gets its id from its path\n' +
    'relative to that root, so run plan and apply on the root itself. A file with local edits is never overwritten\n' +
    'without --force. Exit 0 when every dashboard was pulled or is up to date; 1 when one was not found or was kept\n' +
    'for its local edits (one line each on stderr).\n\n' +
    'With environments in dashcd.yaml, --env NAME pulls from that one environment; a file that uses values (${{ … }},\n' +
    'a dashcd: member) and differs is not overwritten without --force, naming the values it would lose. Files there are\n' +
    'templates, so a live ${{ is written as the literal form $${{ (the file still means the live text).\n\n' +
    'Platform dashboards and notebooks (the Document service; docs/documents-as-code.md) are pulled the same way,\n' +
    'as document files: --all takes every platform dashboard and notebook of the target except the ready-made ones\n' +
    'apps ship; an id that is not a UUID is a document, and a UUID is tried as a classic dashboard first, then as a\n' +
    'document.',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    all: { type: 'boolean', description: 'Pull every dashboard and notebook on the target (except the service’s presets and the apps’ ready-made documents)' },
    force: { type: 'boolean', description: 'Overwrite files that differ from the live dashboard' },
    adopt: { type: 'boolean', description: 'Also mark the pulled dashboards as owned by dashcd (writes the ownership tag; needs WriteConfig), so plan shows no change' },
    env: { ...envFlag, description: 'The one environment of dashcd.yaml to pull from' },
  },
  positionals: [{ name: 'id', description: 'Ids of dashboards (UUIDs) or platform documents to pull', variadic: true }],
  quietLogs: true,
  examples: ['dashcd pull 6a98d7bc-abb9-44f8-ae6a-73e68e71812a', 'dashcd pull --all --dir dashboards/imported', 'dashcd pull --all --adopt'],
  async run({ flags, positionals }, io) {
    const all = booleanFlag(flags, 'all');
    if (all === positionals.length > 0) throw new UsageError('give dashboard ids or --all (not both)');
    const notIds = positionals.filter((id) => parseDashboardId(id) === undefined && !isDocumentId(id));
    if (notIds.length > 0) throw new UsageError(`not a dashboard or document id (a UUID, or letters, digits and dashes): ${notIds.join(', ')}`);
    const given = stringFlag(flags, 'dir');
    const root = await dashboardsRootFor(given, io.cwd);
    const dir = given === undefined ? root : resolve(io.cwd, given);
    if (given !== undefined) await refuseDirOutsideProject(given, root, flags, io);
    // Refreshed files are in the root, new ones in --dir: neither may lead out of the checkout through a link.
    const written = [...new Set([root, dir])].map((folder) => ({ folder, naming: given === undefined ? `the dashboards folder ${shownPath(io.cwd, folder)}` : `--dir ${given}` }));
    await requireRealFolders(io.cwd, written, 'pull writes files only into real folders (name the folder it leads to with --dir)');
    const mode = await environmentMode(root, flags, io);
    if (mode.kind === 'invalid') {
      printDiagnostics(mode.diagnostics, io);
      return ExitCode.InvalidDesiredState;
    }
    const { config } = mode.project;
    const pull = async (target: TargetSession, environment?: PulledEnvironment): Promise<ExitCode> => {
      // Only once there is something to pull from: a refused run leaves no folder behind, nor a `--dir` below the
      // dashboards root that got no file (the root itself is made for the project, as a first pull of nothing needs).
      const made = await makeDirs(dir);
      let wrote = false;
      try {
        const outcomes = await pullInto(target, environment);
        wrote = outcomes.some((o) => o.status === 'written');
        // Each refused item already has its one line on stderr; the exit code is the README's "not done" 1.
        const plan = planLine(environment?.name, flags);
        return reportPulls(outcomes, { dir, cwd: io.cwd, target: target.label, env: environment?.name, plan }, io) > 0 ? ExitCode.Unexpected : ExitCode.Success;
      } finally {
        if (!wrote) for (const folder of made.filter((f) => f !== root).reverse()) await rmdir(folder).catch(() => undefined);
      }
    };
    const pullInto = async (target: TargetSession, environment?: PulledEnvironment): Promise<PullOutcome[]> => {
      const common = {
        api: target.client,
        dir,
        root,
        cwd: io.cwd,
        force: booleanFlag(flags, 'force'),
        adopt: booleanFlag(flags, 'adopt'),
        ownershipTag: config.ownershipTag,
        ignore: config.ignore,
        signal: io.signal,
        ...(environment ? { environment } : {}),
      };
      const ids = all
        ? (await target.client.dashboards.list()).filter((s) => s.owner !== SERVICE_OWNER).map((s) => s.id)
        : positionals.filter((id) => parseDashboardId(id) !== undefined);
      const classic = await pullDashboards({ ...common, ids, kind: KINDS.dashboard });
      // A UUID names a classic dashboard or a document (one made in the app): one no dashboard has is tried as a document.
      const { documents } = target.client;
      const missing = new Set(documents && !all ? classic.filter((o) => o.status === 'not-found').map((o) => o.id) : []);
      const documentIds = all
        ? documents
          ? await pullableDocumentIds(documents)
          : []
        : positionals.filter((id) => parseDashboardId(id) === undefined || missing.has(id));
      const pulled =
        documentIds.length === 0 ? [] : await pullDocuments({ ...common, ids: documentIds, documents: documentsOf(target.client), kind: KINDS.document });
      // One line per id in the order given (a UUID tried as a document last comes back in its place).
      const given = new Map(positionals.map((id, index) => [id.toLowerCase(), index]));
      return [...classic.filter((o) => !missing.has(o.id)), ...pulled].sort((a, b) => (given.get(a.id.toLowerCase()) ?? 0) - (given.get(b.id.toLowerCase()) ?? 0));
    };
    if (mode.kind === 'environments') return pullEnvironment(mode, root, flags, io, pull);
    // Pulling only reads; adopting writes the tag.
    const scopes = booleanFlag(flags, 'adopt') ? ['ReadConfig', 'WriteConfig'] : ['ReadConfig'];
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes }, io, (target) => pull(target));
  },
});

/** The plan that shows what a file left alone differs in: against the same target (`--target`, `--data`, `--env`). */
function planLine(env: string | undefined, flags: FlagValues): string {
  const target = stringFlag(flags, 'target');
  const data = stringFlag(flags, 'data');
  const words = ['dashcd plan', ...(env === undefined ? [] : [`--env ${env}`]), ...(target === undefined ? [] : [`--target ${target}`]), ...(data === undefined ? [] : [`--data ${data}`])];
  return `'${printable(words.join(' '))}'`;
}

/**
 * One line per dashboard: pulled and up-to-date ones on stdout (saying so when the file is an existing one outside
 * `--dir`), each one left alone on stderr as one line; returns how many were left alone. Ids, names and reasons
 * come from the target, the environment's name and the files from the repository: each is made `printable`, so it
 * cannot drive the terminal or start a line of its own in a CI log.
 */
function reportPulls(outcomes: readonly PullOutcome[], where: { dir: string; cwd: string; target: string; env: string | undefined; plan: string }, io: CommandIo): number {
  let problems = 0;
  const dirShown = printable(shownPath(where.cwd, where.dir));
  const target = printable(where.target);
  const env = where.env === undefined ? undefined : printable(where.env);
  for (const o of outcomes) {
    const id = printable(o.id);
    if (o.status === 'not-found') {
      problems++;
      io.stderr.write(`dashcd pull: ${id} not found on ${target}; nothing written for it\n`);
    } else if (o.status === 'refused') {
      problems++;
      io.stderr.write(`dashcd pull: ${id} not pulled: ${printable(o.reason)}\n`);
    } else if (o.status === 'kept-templates') {
      problems++;
      io.stderr.write(`dashcd pull: ${printable(o.file)} differs from live dashboard ${id} in ${env ?? target} and uses ${printable(o.uses.join(', '))}; not overwritten (it would lose them): ${where.plan} shows what differs; --force replaces it with the rendered dashboard\n`);
    } else if (o.status === 'kept-local-edits') {
      problems++;
      io.stderr.write(`dashcd pull: ${printable(o.file)} differs from live dashboard ${id} (local edits?); not overwritten: ${where.plan} shows what differs; --force replaces it\n`);
    } else {
      const elsewhere = isWithin(resolve(where.cwd, o.file), where.dir) ? '' : `  (already managed there: ${o.status === 'written' ? 'updated in place' : 'left as is'}, not copied into ${dirShown})`;
      const adopted = o.adopted ? '  (adopted: now owned by dashcd)' : '';
      io.stdout.write(`${o.status === 'written' ? '↓ pulled' : '= up to date'}  ${id}  ${printable(o.file)}${elsewhere}${adopted}\n`);
    }
  }
  // `--all` of an empty target: a word, not silence that looks like a hang or a failure.
  if (outcomes.length === 0) io.stderr.write(`dashcd pull: nothing to pull from ${target}${env ? ` (${env})` : ''}: it holds no dashboards or notebooks (presets aside)\n`);
  return problems;
}

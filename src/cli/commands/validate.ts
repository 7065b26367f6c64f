import { isStrict } from '../../config/project-config.js';
import { filesNotRead } from '../../desired/discover-files.js';
import { loadDesired } from '../../desired/load-desired.js';
import { shownPath } from '../../lib/shown-path.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo } from '../command.js';
import { cacheFlag, dataFlag, dirFlag, pathsPositional, strictFlag, targetFlag } from '../common-flags.js';
import { withCheckCache } from '../check-cache-run.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { count, printDiagnostics, printWarnings } from '../diagnostics-output.js';
import { strictly } from '../../desired/strict.js';
import { ExitCode } from '../exit-codes.js';
import { itemCounts, warningsNote } from '../valid-summary.js';
import { allEnvsFlag, envFlag, environmentMode } from '../environment-choice.js';
import type { Diagnostic } from '../../desired/diagnostic.js';
import { problemTotal } from '../../desired/capped-problems.js';

export const validateCommand = defineCommand({
  path: ['validate'],
  summary: 'Check every dashboard file against the schema (and optionally the target’s validator)',
  description:
    'Reports all problems in all files in one run as file:line:col, and in GitHub Actions as annotations.\nUnknown keys are warnings (did you mean …?) unless --strict or `strict: true` in dashcd.yaml.\nExit 0 when valid, 3 when anything is invalid.',
  flags: {
    dir: dirFlag,
    remote: { type: 'boolean', description: "Also ask the target's /validator about each dashboard" },
    target: targetFlag,
    data: dataFlag,
    strict: strictFlag,
    cache: cacheFlag,
    env: { ...envFlag, description: `${envFlag.description}; without it, every environment` },
    'all-envs': allEnvsFlag,
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd validate', 'dashcd validate --env prod', 'dashcd validate --dir ops/dashboards', 'DT_ENV_URL=https://abc123.live.dynatrace.com DT_API_TOKEN=… dashcd validate --remote'],
  async run({ flags, positionals }, io) {
    const selection = await selectionFromArgs(flags, positionals, io);
    const { root, only } = selection;
    const mode = await environmentMode(root, flags, io);
    // The files are checked as dashcd.yaml says (environments, values): against an invalid one, every templated file
    // would show problems that are not its own. As plan and apply, its problems first, and only them.
    if (mode.kind === 'invalid') {
      printDiagnostics(mode.diagnostics, io);
      io.stderr.write('  the dashboard files are checked once dashcd.yaml is valid\n');
      return ExitCode.InvalidDesiredState;
    }
    // Loaded only with environments: they need targets (HTTP client, server code) that plain validation does not.
    if (mode.kind === 'environments') return (await import('../validate-environments.js')).validateEnvironments(mode, selection, flags, io);
    const loaded = await withCheckCache(root, only !== undefined, flags, io, (cache) => loadDesired({ dir: root, cwd: io.cwd, ...(only ? { only } : {}), ...(cache ? { cache } : {}) }));
    const desired = isStrict(booleanFlag(flags, 'strict'), mode.project.config) ? strictly(loaded) : loaded;
    let diagnostics: Diagnostic[] = [...desired.diagnostics];
    if (diagnostics.length === 0 && booleanFlag(flags, 'remote')) {
      // Loaded only for --remote: plain validation needs no HTTP client or server code, and starts faster without.
      const [{ withTarget }, { validateRemote }] = await Promise.all([import('../with-target.js'), import('../validate-remote.js')]);
      diagnostics = await withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data') }, io, (target) =>
        validateRemote(desired.dashboards, target.client, io),
      );
    }
    if (diagnostics.length > 0) {
      printDiagnostics(diagnostics, io, desired.warnings);
      return ExitCode.InvalidDesiredState;
    }
    printWarnings(desired.warnings, io, 'stdout');
    io.stderr.write(`✓ ${itemCounts(desired.dashboards)} valid in ${count(desired.files, 'file')}${warningsNote(problemTotal(desired.warnings))}\n`);
    if (desired.files === 0 && only === undefined) await sayWhatIsNotRead(root, io);
    return ExitCode.Success;
  },
});

/** A folder with nothing to check: its other files, if it has any, are named, so a `.bak` or `.txt` is no mystery. */
async function sayWhatIsNotRead(root: string, io: CommandIo): Promise<void> {
  const others = await filesNotRead(root);
  if (others.length === 0) return;
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? ', …' : '');
  io.stderr.write(`  ${count(others.length, 'file')} in ${shownPath(io.cwd, root)} ${others.length === 1 ? 'is' : 'are'} not read: only .yaml, .yml and .json files are dashboards (${shown})\n`);
}

import { dirname } from 'node:path';
import { pinIds } from '../../reconcile/pin-ids.js';
import { defineCommand } from '../command.js';
import { dirFlag, pathsPositional } from '../common-flags.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { count, printDiagnostics } from '../diagnostics-output.js';
import { environmentMode } from '../environment-choice.js';
import { ExitCode } from '../exit-codes.js';
import { requireRealFolders } from '../real-folder.js';
import { shownPath } from '../../lib/shown-path.js';

export const pinCommand = defineCommand({
  path: ['pin'],
  summary: "Write each file's derived id into the file, so it can be renamed safely",
  description:
    'A file without an `id` gets one derived from its path; renaming it would then create a new dashboard.\n' +
    'Pinning writes that id into the file (comments and formatting are kept): a classic dashboard\'s `id`, a platform\n' +
    'dashboard\'s or notebook\'s `document.id`. An invalid file is not pinned: its problems are printed, and the exit\n' +
    'code is 3.',
  flags: { dir: dirFlag },
  positionals: [{ ...pathsPositional, description: 'Only these dashboard files or folders' }],
  quietLogs: true,
  examples: ['dashcd pin', 'dashcd pin --dir ops/dashboards && git diff'],
  async run({ flags, positionals }, io) {
    const { root, only } = await selectionFromArgs(flags, positionals, io);
    // The root, and each folder a path or --dir names files in: pin rewrites the files it reads.
    const written = [...new Set([root, ...(only ?? []).map((file) => dirname(file))])].map((folder) => ({ folder, naming: folder === root ? `the dashboards folder ${shownPath(io.cwd, root)}` : shownPath(io.cwd, folder) }));
    await requireRealFolders(io.cwd, written, 'pin writes files only in real folders (name the folder it leads to with --dir)');
    const mode = await environmentMode(root, flags, io);
    if (mode.kind === 'invalid') {
      printDiagnostics(mode.diagnostics, io, [], 'stderr');
      return ExitCode.InvalidDesiredState;
    }
    const environments = mode.kind === 'environments' ? { environments: { project: mode.project, declared: mode.declared } } : {};
    const { pinned, changed, diagnostics, alreadyPinned } = await pinIds({ dir: root, cwd: io.cwd, ...(only ? { only } : {}), ...environments });
    for (const { file, id } of pinned) io.stdout.write(`pinned ${id}  ${file}\n`);
    for (const file of changed) io.stderr.write(`not pinned: ${file} changed while pin read it; run pin again\n`);
    if (diagnostics.length > 0) printDiagnostics(diagnostics, io, [], 'stderr');
    const invalid = new Set(diagnostics.map((d) => d.file)).size;
    const unpinned = invalid > 0 ? `; ${count(invalid, 'invalid file')} not pinned (fix, then pin again)` : '';
    const already = alreadyPinned > 0 ? `; ${alreadyPinned} already ${alreadyPinned === 1 ? 'was' : 'were'}` : '';
    io.stderr.write(`${count(pinned.length, 'file')} pinned${already}${unpinned}\n`);
    return diagnostics.length > 0 || changed.length > 0 ? ExitCode.InvalidDesiredState : ExitCode.Success;
  },
});

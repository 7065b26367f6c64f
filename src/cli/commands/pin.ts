import { pinIds } from '../../desired/dashboard-yaml.js';
import { defineCommand } from '../command.js';
import { dirFlag, pathsPositional } from '../common-flags.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { ExitCode } from '../exit-codes.js';

export const pinCommand = defineCommand({
  path: ['pin'],
  summary: "Write each file's derived id into the file, so it can be renamed safely",
  description:
    'A file without an `id` gets one derived from its path; renaming it would then create a new dashboard.\n' +
    'Pinning writes that id into the file (comments and formatting are kept): a classic dashboard\'s `id`, a platform\n' +
    'dashboard\'s or notebook\'s `document.id`.',
  flags: { dir: dirFlag },
  positionals: [{ ...pathsPositional, description: 'Only these dashboard files or folders' }],
  quietLogs: true,
  examples: ['dashcd pin', 'dashcd pin --dir ops/dashboards && git diff'],
  async run({ flags, positionals }, io) {
    const { root, only } = await selectionFromArgs(flags, positionals, io);
    const pinned = await pinIds({ dir: root, cwd: io.cwd, ...(only ? { only } : {}) });
    for (const { file, id } of pinned) io.stdout.write(`pinned ${id}  ${file}\n`);
    io.stderr.write(`${pinned.length} file${pinned.length === 1 ? '' : 's'} pinned\n`);
    return ExitCode.Success;
  },
});

import { defineCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { classicDashboards } from '../../kinds/classic-dashboards.js';

export const schemaCommand = defineCommand({
  path: ['schema'],
  summary: 'Print the JSON Schema of a dashboard file (for editor validation and completion)',
  description:
    'Generated from the same zod schemas the server and validate use. Point yaml-language-server at it with a first\n' +
    'line such as `# yaml-language-server: $schema=../../dashboard.schema.json` in dashboards/team/api.yaml: the path\n' +
    'is relative to the YAML file (here, a schema written at the repository root).',
  flags: {},
  examples: ['dashcd schema > dashboard.schema.json'],
  async run(_args, io) {
    io.stdout.write(`${JSON.stringify(classicDashboards.jsonSchema(), null, 2)}\n`);
    return ExitCode.Success;
  },
});

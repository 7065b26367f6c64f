import { defineCommand } from '../command.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { closest } from '../parse-args.js';
import { classicDashboards } from '../../kinds/classic-dashboards.js';
import { documentFileJsonSchema } from '../../schema/document-content-json-schema.js';

/** Each kind of file, by the name a user types: one JSON Schema each (an editor checks one kind of file). */
const SCHEMAS: Readonly<Record<string, () => object>> = {
  dashboard: () => classicDashboards.jsonSchema(),
  'platform-dashboard': () => documentFileJsonSchema('dashboard'),
  notebook: () => documentFileJsonSchema('notebook'),
};

export const schemaCommand = defineCommand({
  path: ['schema'],
  summary: 'Print the JSON Schema of a dashboard, platform dashboard or notebook file (for editor validation and completion)',
  description:
    'Generated from the same zod schemas the server and validate use. Point yaml-language-server at it with a first\n' +
    'line such as `# yaml-language-server: $schema=../../dashboard.schema.json` in dashboards/team/api.yaml: the path\n' +
    'is relative to the YAML file (here, a schema written at the repository root). Without a kind: a classic dashboard.',
  flags: {},
  positionals: [{ name: 'kind', description: `Which file: ${Object.keys(SCHEMAS).join(', ')} (default dashboard)` }],
  examples: ['dashcd schema > dashboard.schema.json', 'dashcd schema notebook > notebook.schema.json'],
  async run({ positionals }, io) {
    const [kind = 'dashboard', ...more] = positionals;
    const schema = Object.hasOwn(SCHEMAS, kind) ? SCHEMAS[kind] : undefined;
    if (schema === undefined || more.length > 0) {
      const hint = schema === undefined ? closest(kind, Object.keys(SCHEMAS)) : undefined;
      const not = schema === undefined ? ` (not '${kind}'${hint === undefined ? '' : `; did you mean ${hint}?`})` : '';
      throw new UsageError(`takes one kind of file: ${Object.keys(SCHEMAS).join(', ')}${not}`);
    }
    io.stdout.write(`${JSON.stringify(schema(), null, 2)}\n`);
    return ExitCode.Success;
  },
});

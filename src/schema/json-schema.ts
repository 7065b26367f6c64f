import { z } from 'zod';
import { Dashboard } from './dashboard.js';
import { knownFields } from './known-fields.js';

export const DASHBOARD_FILE_SCHEMA_ID = 'urn:dashcd:schema:dashboard-file';

/**
 * JSON Schema (draft-07, the draft editors' YAML and JSON language servers support best) of a dashboard file,
 * generated from the `Dashboard` zod schema as input, so it accepts exactly what `validate` accepts apart from
 * checks JSON Schema cannot express (dynamic filter syntax, id format); `validate` stays the authority. Objects
 * whose fields are fully known are closed, so an editor flags `tag:` where `validate` warns about it.
 */
export function dashboardFileJsonSchema(): object {
  return fileJsonSchema(Dashboard, {
    $id: DASHBOARD_FILE_SCHEMA_ID,
    title: 'dashcd dashboard file',
    description: 'One dashboard per file, in the config API Dashboard shape. `id` is optional: without it, dashcd derives one from the file path.',
  });
}

/** A file schema's JSON Schema as editors read it (see dashboardFileJsonSchema), headed by its id and title. */
export function fileJsonSchema(schema: z.ZodType, header: { $id: string; title: string; description: string }): object {
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (knownFields.get(zodSchema)?.unknownKeys === 'closed') jsonSchema.additionalProperties = false;
    },
  });
  // zod names the draft it was asked for; a schema without it would be read as the newest draft by editors.
  const { $schema, ...rest } = generated;
  return { $schema, ...header, ...rest };
}

import { z } from 'zod';

/**
 * Which objects of a dashboard file have a list of known keys, so that a key outside it (`tag:` for `tags`) is
 * reported instead of silently passing through. The list is the object schema's own shape, so adding a field to a
 * schema is all it takes to make it known; only the marker lives here.
 * - `closed`: the fields are fully known (spec plus every field real exports carry); the JSON Schema closes the
 *   object too (`additionalProperties: false`) so editors flag typos while you type.
 * - `listed`: tile models. The spec shows only some of their fields and exports vary more, so the editor stays quiet
 *   and validate warns.
 * Unknown keys are warnings, not errors, unless the user asks for strictness: exports carry fields no list names.
 */
export interface KnownFields {
  readonly unknownKeys: 'closed' | 'listed';
}

export const knownFields = z.registry<KnownFields>();

export function closedObject<T extends z.ZodObject>(schema: T): T {
  knownFields.add(schema, { unknownKeys: 'closed' });
  return schema;
}

export function listedObject<T extends z.ZodObject>(schema: T): T {
  knownFields.add(schema, { unknownKeys: 'listed' });
  return schema;
}

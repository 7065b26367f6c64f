import { z } from 'zod';
import { Dashboard } from '../schema/dashboard.js';
import { knownFields } from '../schema/known-fields.js';

/** A key of an object whose fields are known (see schema/known-fields.ts) that is not one of them. */
export interface UnknownKey {
  /** The object holding the key, as a path from the dashboard. */
  parent: PropertyKey[];
  key: string;
  /** The object's known keys, in schema order. */
  known: readonly string[];
}

/**
 * Every unknown key in `value`, walking it alongside `schema`: only through members the schema names, and into a
 * tile only when its `tileType` selects a model (a wrong type is the schema's error already).
 */
export function findUnknownKeys(value: unknown, schema: z.ZodType = Dashboard): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk(schema, value, [], found);
  return found;
}

function walk(schema: z.ZodType, value: unknown, path: PropertyKey[], found: UnknownKey[]): void {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray) {
    if (Array.isArray(value)) value.forEach((item, i) => walk(inner.element as z.ZodType, item, [...path, i], found));
  } else if (inner instanceof z.ZodDiscriminatedUnion) {
    const option = selectedOption(inner, value);
    if (option !== undefined) walk(option, value, path, found);
  } else if (inner instanceof z.ZodObject && isPlain(value)) {
    const shape = inner.shape as Record<string, z.ZodType>;
    if (knownFields.has(inner)) {
      for (const key of Object.keys(value)) if (!Object.hasOwn(shape, key)) found.push({ parent: path, key, known: Object.keys(shape) });
    }
    for (const key of Object.keys(shape)) {
      if (Object.hasOwn(value, key)) walk(shape[key] as z.ZodType, value[key], [...path, key], found);
    }
  }
}

function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner;
}

function selectedOption(union: z.ZodDiscriminatedUnion, value: unknown): z.ZodType | undefined {
  if (!isPlain(value)) return undefined;
  const discriminator = union._zod.def.discriminator;
  const tag = value[discriminator];
  return (union.options as z.ZodType[]).find((option) => {
    const field = option instanceof z.ZodObject ? (option.shape as Record<string, z.ZodType>)[discriminator] : undefined;
    return field !== undefined && field.safeParse(tag).success;
  });
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { z } from 'zod';
import { Dashboard } from '../schema/dashboard.js';
import { knownFields } from '../schema/known-fields.js';
import { closest } from '../lib/closest.js';

/** A key of an object whose fields are known (see schema/known-fields.ts) that is not one of them. */
export interface UnknownKey {
  /** The object holding the key, as a path from the dashboard. */
  parent: PropertyKey[];
  key: string;
  /** The object's known keys, in schema order. */
  known: readonly string[];
}

/**
 * Every unknown key in `value`, walking it alongside `schema`: only through members the schema names. A tile whose
 * `tileType` selects no model (the schema's error already) is still walked through the members every model has,
 * so `bounds: { widht: … }` is reported with the wrong type, not only once the type is fixed.
 */
export function findUnknownKeys(value: unknown, schema: z.ZodType = Dashboard): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk(schema, value, undefined, found);
  return found;
}

/** The path walked so far, newest step first: an array is built only for a key that is found. */
interface PathStep {
  up: PathStep | undefined;
  key: PropertyKey;
}

function walk(schema: z.ZodType, value: unknown, path: PathStep | undefined, found: UnknownKey[]): void {
  const node = nodeOf(schema);
  if (node.kind === 'array') {
    if (Array.isArray(value)) value.forEach((item, i) => walk(node.element, item, { up: path, key: i }, found));
  } else if (node.kind === 'record') {
    if (isPlain(value)) for (const key of Object.keys(value)) walk(node.element, value[key], { up: path, key }, found);
  } else if (node.kind === 'union') {
    if (!isPlain(value)) return;
    const option = node.options.find((o) => o.accepts(value[node.discriminator]))?.schema;
    if (option !== undefined) return walk(option, value, path, found);
    for (const [key, member] of node.shared) if (Object.hasOwn(value, key)) walk(member, value[key], { up: path, key }, found);
    // No tag at all: a key no model has that is near the tag's name is the tag misspelt (`tiletype:`).
    if (value[node.discriminator] === undefined) {
      const misspelt = Object.keys(value).filter((key) => !node.known.has(key) && closest(key, [node.discriminator]) !== undefined);
      for (const key of misspelt) found.push({ parent: pathArray(path), key, known: [node.discriminator] });
    }
  } else if (node.kind === 'object' && isPlain(value)) {
    if (node.known !== undefined) {
      for (const key of Object.keys(value)) if (!Object.hasOwn(node.shape, key)) found.push({ parent: pathArray(path), key, known: node.known });
    }
    for (const key of node.keys) {
      if (Object.hasOwn(value, key)) walk(node.shape[key] as z.ZodType, value[key], { up: path, key }, found);
    }
  }
}

function pathArray(path: PathStep | undefined): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (let step = path; step !== undefined; step = step.up) keys.unshift(step.key);
  return keys;
}

/**
 * What the walk needs from a schema, worked out once per schema object. Per value it cost most of the walk: the
 * shape's keys listed again for every object, and a failed `safeParse` of the tag against each tile model before
 * the one that matches (zod builds an error for each).
 */
type SchemaNode =
  | { kind: 'array'; element: z.ZodType }
  /** A map (platform dashboards' `tiles` and `layouts`): each member is walked as the record's value. */
  | { kind: 'record'; element: z.ZodType }
  | {
      kind: 'union';
      discriminator: string;
      options: { schema: z.ZodType; accepts(tag: unknown): boolean }[];
      /** Members every option has, with the first option's schema: what an object of no option is walked through. */
      shared: [string, z.ZodType][];
      /** Members any option has. */
      known: ReadonlySet<string>;
    }
  | { kind: 'object'; shape: Record<string, z.ZodType>; keys: readonly string[]; known: readonly string[] | undefined }
  | { kind: 'other' };

const nodes = new WeakMap<z.ZodType, SchemaNode>();

function nodeOf(schema: z.ZodType): SchemaNode {
  let node = nodes.get(schema);
  if (node === undefined) {
    node = describeSchema(unwrap(schema));
    nodes.set(schema, node);
  }
  return node;
}

function describeSchema(inner: z.ZodType): SchemaNode {
  if (inner instanceof z.ZodArray) return { kind: 'array', element: inner.element as z.ZodType };
  if (inner instanceof z.ZodRecord) return { kind: 'record', element: inner.valueType as z.ZodType };
  if (inner instanceof z.ZodDiscriminatedUnion) {
    const discriminator = inner._zod.def.discriminator;
    const options = inner.options as z.ZodType[];
    const known = new Set(options.flatMap((option) => (option instanceof z.ZodObject ? Object.keys(option.shape as object) : [])));
    return { kind: 'union', discriminator, options: options.map((option) => ({ schema: option, accepts: tagTest(option, discriminator) })), shared: sharedMembers(options, discriminator), known };
  }
  if (inner instanceof z.ZodObject) {
    const shape = inner.shape as Record<string, z.ZodType>;
    const keys = Object.keys(shape);
    return { kind: 'object', shape, keys, known: knownFields.has(inner) ? keys : undefined };
  }
  return { kind: 'other' };
}

function sharedMembers(options: readonly z.ZodType[], discriminator: string): [string, z.ZodType][] {
  const shapes = options.map((option) => (option instanceof z.ZodObject ? (option.shape as Record<string, z.ZodType>) : {}));
  const [first, ...rest] = shapes;
  return Object.entries(first ?? {}).filter(([key]) => key !== discriminator && rest.every((shape) => Object.hasOwn(shape, key)));
}

/** Whether an option's discriminator field accepts a tag: a set lookup for an enum, else the field's own parse. */
function tagTest(option: z.ZodType, discriminator: string): (tag: unknown) => boolean {
  const field = option instanceof z.ZodObject ? (option.shape as Record<string, z.ZodType>)[discriminator] : undefined;
  if (field === undefined) return () => false;
  if (field instanceof z.ZodEnum) {
    const values = new Set<unknown>(field.options);
    return (tag) => values.has(tag);
  }
  return (tag) => field.safeParse(tag).success;
}

/**
 * The keys an object schema allows at `path` under `schema` (through optional, nullable, default, pipes, records,
 * arrays and unions): what a strict object's unknown-key error can offer, where zod's issue names none.
 */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): readonly string[] {
  let candidates = [schema];
  for (const step of path) candidates = candidates.flatMap((candidate) => children(candidate, step));
  return [...new Set(candidates.flatMap((candidate) => objectsIn(candidate).flatMap((object) => Object.keys(object.shape))))];
}

function children(schema: z.ZodType, step: PropertyKey): z.ZodType[] {
  return alternatives(schema).flatMap((inner) => {
    if (inner instanceof z.ZodObject) return typeof step === 'string' && Object.hasOwn(inner.shape, step) ? [inner.shape[step] as z.ZodType] : [];
    if (inner instanceof z.ZodRecord) return [inner.valueType as z.ZodType];
    if (inner instanceof z.ZodArray) return [inner.element as z.ZodType];
    return [];
  });
}

function objectsIn(schema: z.ZodType): z.ZodObject[] {
  return alternatives(schema).filter((inner): inner is z.ZodObject => inner instanceof z.ZodObject);
}

/** A schema's own forms, unwrapped: each option of a union, the input of a pipe. */
function alternatives(schema: z.ZodType): z.ZodType[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodUnion) return (inner.options as z.ZodType[]).flatMap(alternatives);
  if (inner instanceof z.ZodPipe) return alternatives(inner.in as z.ZodType);
  return [inner];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

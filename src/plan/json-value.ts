/** Plain JSON values: what normalisation works on and what a plan carries, so a plan always serialises faithfully. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy as JSON would carry it: `undefined`, functions and symbols disappear (as in `JSON.stringify`),
 * non-finite numbers become `null`. Objects are created without a prototype-sensitive setter path, so a
 * `__proto__` key from parsed YAML stays an ordinary member.
 */
export function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      return Array.isArray(value) ? value.map((item) => toJsonValue(item) ?? null) : toJsonObject(value);
    default:
      return undefined;
  }
}

function toJsonObject(value: object): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const json = toJsonValue((value as Record<string, unknown>)[key]);
    if (json !== undefined) setMember(out, key, json);
  }
  return out;
}

/**
 * `out[key] = value`, except that `__proto__` becomes an own member instead of replacing the prototype. Plain
 * assignment for every other key: `defineProperty` on each member was the plan's largest CPU cost.
 */
function setMember(out: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Object keys sorted (by code unit, locale-independent) at every depth, so equal values serialise identically. */
export function sortKeysDeep(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  // The default sort compares UTF-16 code units, as compareCodeUnits does, without a call per comparison.
  for (const key of Object.keys(value).sort()) setMember(out, key, sortKeysDeep(value[key] as JsonValue));
  return out;
}

/**
 * toJsonValue with keys sorted and `null` object members left out (array items stay): the first copy of
 * normalisation, which then only mutates it. One copy instead of a copy plus a sorted copy.
 */
export function toSortedJsonValue(value: unknown): JsonValue | undefined {
  if (typeof value !== 'object' || value === null) return toJsonValue(value);
  if (Array.isArray(value)) return value.map((item) => toSortedJsonValue(item) ?? null);
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    const json = toSortedJsonValue((value as Record<string, unknown>)[key]);
    if (json !== undefined && json !== null) setMember(out, key, json);
  }
  return out;
}

/**
 * sortKeysDeep for a value this module's caller owns: objects whose keys are already in order are kept as they are
 * (after their members are sorted in place), so only the objects normalisation added keys to are copied.
 */
export function sortKeysInPlace(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = sortKeysInPlace(value[i] as JsonValue);
    return value;
  }
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = value[key] as JsonValue;
    if (typeof member === 'object' && member !== null) {
      const inOrder = sortKeysInPlace(member);
      if (inOrder !== member) setMember(value, key, inOrder);
    }
    if (i > 0 && (keys[i - 1] as string) > key) sorted = false;
  }
  return sorted ? value : sortKeysDeep(value);
}

/** A serialisation in which key order does not matter: the sort key for set-like arrays. */
export function canonicalJson(value: JsonValue): string {
  return JSON.stringify(sortKeysDeep(value));
}

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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

/** A serialisation in which key order does not matter: the sort key for set-like arrays. */
export function canonicalJson(value: JsonValue): string {
  return JSON.stringify(sortKeysDeep(value));
}

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

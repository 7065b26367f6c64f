import { alignArrays } from './align-arrays.js';
import { parsePointer, pointerProblem, removePointer, WILDCARD } from './json-pointer.js';
import { isJsonObject, type JsonValue } from './json-value.js';

/**
 * The body an update or adopt writes when ignore rules hide parts of the item from the plan: at what each rule
 * matches, the live item's value, so a change elsewhere never overwrites what people changed in the app (the plan
 * said "no change" to it, then apply wrote the file's layout over the one arranged in the app). The file's value
 * stays where the live item has none at that place (a tile the file adds keeps its own layout), and a wildcard adds
 * nothing only the live item has (a layout of a tile the file removed). Where both are maps (`/layouts`), they are
 * kept key by key the same way. Array items match by index, as the compared forms compare them. Pure: neither input
 * is modified, and a body no rule touches is returned as it is.
 */
export function keepIgnored<T>(desired: T, live: unknown, ignore: readonly string[]): T {
  let out: unknown = desired;
  for (const pointer of ignore) {
    if (pointerProblem(pointer) === undefined) out = keptAt(out, live, parsePointer(pointer));
  }
  return out as T;
}

type Container = Record<string, unknown> | unknown[];

function keptAt(desired: unknown, live: unknown, segments: readonly string[]): unknown {
  const [head, ...rest] = segments;
  // The live item has nothing here (or not this shape): the file's part is new, and stays.
  if (head === undefined || !isContainer(desired) || !isContainer(live) || Array.isArray(desired) !== Array.isArray(live)) return desired;
  // Every item of a list the rule names whole: the live list.
  if (Array.isArray(live) && head === WILDCARD && rest.length === 0) return structuredClone(live);
  let out: Container | undefined;
  for (const [key, liveKey] of matchedKeys(desired, live, head, rest)) {
    const had = Object.hasOwn(desired, key);
    // Below a place the file does not have, nothing is kept (an item past the file's end would leave a hole).
    if (!had && (rest.length > 0 || Array.isArray(desired))) continue;
    const liveValue = (live as Record<string, unknown>)[liveKey];
    const value = rest.length > 0 ? keptAt((desired as Record<string, unknown>)[key], liveValue, rest) : keptValue(had, (desired as Record<string, unknown>)[key], liveValue);
    if (had && value === (desired as Record<string, unknown>)[key]) continue;
    out ??= Array.isArray(desired) ? [...desired] : { ...desired };
    (out as Record<string, unknown>)[key] = value;
  }
  return out ?? desired;
}

/**
 * Each place of the file's container the rule's segment matches, beside the live item's place that is the same
 * thing: in a map, the same key; in a list under a wildcard, the item the plan pairs it with (align-arrays.ts: by
 * identity, so a tile inserted before others does not take the next one's layout), else the same index.
 */
function matchedKeys(desired: Container, live: Container, head: string, rest: readonly string[]): [string, string][] {
  // In a list only an index names an item (`length` is no member of the JSON), as the plan's pointers read it.
  if (head !== WILDCARD) return Object.hasOwn(live, head) && (!Array.isArray(live) || /^(0|[1-9][0-9]*)$/.test(head)) ? [[head, head]] : [];
  if (!Array.isArray(desired) || !Array.isArray(live)) return Object.keys(desired).filter((key) => Object.hasOwn(live, key)).map((key) => [key, key]);
  // Without what the rule hides, as the plan compares them: two tiles apart only in their bounds are the same tile.
  const hidden = (items: readonly unknown[]): JsonValue[] =>
    items.map((item) => {
      const copy = structuredClone(item) as JsonValue;
      removePointer(copy, rest);
      return copy;
    });
  return alignArrays(hidden(live), hidden(desired)).flatMap((step) => (step.kind === 'pair' ? [[String(step.b), String(step.a)] as [string, string]] : []));
}

/**
 * What is written at a matched place the live item has: its value; for two maps, live's members and the file's
 * members live has not (a rule over `/document` dropped the description set in the app when only the file's keys
 * were kept).
 */
function keptValue(had: boolean, desired: unknown, live: unknown): unknown {
  if (!had || !isJsonObject(desired) || !isJsonObject(live)) return structuredClone(live);
  return { ...Object.fromEntries(Object.entries(desired).filter(([key]) => !Object.hasOwn(live, key))), ...structuredClone(live) };
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** A JSON object as parsed from YAML: not an array, not null. */
export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `defineProperty`: a member named `__proto__` stays an own data member, as the YAML parser made it. */
export function setOwn(target: PlainObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `over` merged into `base`: objects member by member, recursively (base's key order first, new keys after);
 * anything else — scalars, arrays — is replaced whole. Monaco replaces a whole value on override and its users
 * lose members they did not mean to touch; here overriding `mz.id` keeps `mz.name`. With `nullDeletes` a `null`
 * removes the member (RFC 7396 JSON Merge Patch), the way an override drops a member of the base dashboard.
 * Never mutates its inputs.
 */
export function mergeDeep(base: unknown, over: unknown, { nullDeletes = false }: { nullDeletes?: boolean } = {}): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: PlainObject = {};
  for (const [key, value] of Object.entries(base)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(over)) {
    if (nullDeletes && value === null) delete out[key];
    else setOwn(out, key, Object.hasOwn(base, key) ? mergeDeep(base[key], value, { nullDeletes }) : value);
  }
  return out;
}

/** The member at `path`, or `undefined` when some step is missing (own members only). */
export function getPath(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof segment === 'number' ? !Array.isArray(current) : !isPlainObject(current)) return undefined;
    if (!Object.hasOwn(current as object, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/**
 * A copy of `value` that keeps no other string alive. V8 makes a substring of 13 characters or more a view into the
 * string it was cut from, so a short value cut from a long text holds the whole text for as long as it is kept: a
 * dashboard's name, cut by the YAML parser from its file, kept that file's text (~22 KB) in the daemon's status,
 * 222 MB of 576 MB at 10,000 dashboards after the start-up pass. A structured clone writes every string's characters
 * anew, in a string or anywhere in plain data. For values kept long, not for values passed on.
 */
export function detached<T>(value: T): T {
  return structuredClone(value);
}

/**
 * `detached` for one string, at a quarter of a structured clone's cost (~0.06 µs against ~0.24 µs): for values kept
 * per event on a hot path. Prefixed, the text is a new string V8 must flatten (copy) before it can cut the value back
 * out of it, so the result holds that copy and nothing of what `text` was cut from.
 */
export function detachedText(text: string): string {
  return ` ${text}`.slice(1);
}

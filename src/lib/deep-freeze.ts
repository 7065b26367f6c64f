/**
 * Freezes `value` and every object and array inside it, and returns it: a value handed to many readers (a parse kept
 * for the next caller) cannot then be changed by one of them under the others. Iterative, so any depth is safe.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const member of Object.values(next)) pending.push(member);
  }
  return value;
}

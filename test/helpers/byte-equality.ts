import { expect } from 'vitest';

/**
 * vitest's deep equality walks a typed array one index at a time, through every custom tester: about 10 s per MB on
 * this machine, which made tests comparing prepared dashboards (their members are UTF-8 bytes) the slowest of the
 * suite. Two byte views of the same kind are equal when their bytes are; anything else is left to vitest.
 */
function equalBytes(a: unknown, b: unknown): boolean | undefined {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.constructor !== b.constructor) return undefined;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

expect.addEqualityTesters([equalBytes]);

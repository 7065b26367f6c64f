import { describe, expect, it } from 'vitest';
import { BodySlabs } from '../../../../src/server/feed/body-slabs.js';

describe('BodySlabs', () => {
  it('cuts bodies one after another from one slab while each still has its room after it', () => {
    const slabs = new BodySlabs(100);
    const a = slabs.take(30, 20);
    const b = slabs.take(30, 20);
    const c = slabs.take(30, 10); // ends at 90 and its room at exactly 100: still the same slab
    expect([a.at, b.at, c.at]).toEqual([0, 30, 60]);
    expect(b.slab).toBe(a.slab);
    expect(c.slab).toBe(a.slab);
    expect(a.slab.length).toBe(100);
  });

  it('starts a new slab when a body and its room do not fit, and never hands out bytes twice', () => {
    const slabs = new BodySlabs(100);
    const a = slabs.take(50, 0);
    const b = slabs.take(30, 21); // 50 + 30 + 21 > 100
    expect(b.slab).not.toBe(a.slab);
    expect(b.at).toBe(0);
    a.slab.fill(1, a.at, a.at + 50);
    b.slab.fill(2, b.at, b.at + 30 + 21);
    expect(a.slab.subarray(0, 50).every((byte) => byte === 1)).toBe(true);
  });

  it('makes a slab large enough for a body and room larger than its usual size', () => {
    const slabs = new BodySlabs(100);
    const big = slabs.take(150, 30);
    expect(big.at).toBe(0);
    expect(big.slab.length).toBe(180);
    expect(slabs.take(10, 20).slab).toBe(big.slab); // 150 + 10 + 20 = 180: the big slab's last bytes
    const next = slabs.take(10, 11); // 160 + 10 + 11 > 180: a slab of the usual size follows
    expect(next.slab).not.toBe(big.slab);
    expect(next.slab.length).toBe(100);
  });

  it('cuts an empty body where the next one starts', () => {
    const slabs = new BodySlabs(100);
    const empty = slabs.take(0, 10);
    const after = slabs.take(5, 10);
    expect(after.slab).toBe(empty.slab);
    expect([empty.at, after.at]).toEqual([0, 0]);
  });
});

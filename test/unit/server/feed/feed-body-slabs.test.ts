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

  it('cuts a full slab again once every body cut from it has been given back', () => {
    const slabs = new BodySlabs(100);
    const first = [slabs.take(40, 10), slabs.take(40, 10)];
    for (const body of first) body.giveBack();
    const second = slabs.take(40, 30); // 80 + 40 + 30 > 100: the first slab is done, and free: cut again from its start
    expect(second.slab).toBe(first[0]?.slab);
    expect(second.at).toBe(0);
  });

  it('starts a new slab while a body from the full one is still out', () => {
    const slabs = new BodySlabs(100);
    const out = slabs.take(40, 10);
    slabs.take(40, 10).giveBack();
    const second = slabs.take(40, 30);
    expect(second.slab).not.toBe(out.slab);
    out.giveBack();
    expect(slabs.take(40, 30).slab).toBe(out.slab); // 40 + 40 + 30 > 100: the second is done (and out); the first is free
  });

  it('never cuts a slab again while one body from it is still out, however often another was given back', () => {
    const slabs = new BodySlabs(100, 8);
    const kept = slabs.take(40, 10);
    const other = slabs.take(40, 10);
    other.giveBack();
    other.giveBack(); // twice: counts once, so `kept` still holds the slab
    const seen = new Set<Buffer>();
    for (let i = 0; i < 6; i++) {
      const body = slabs.take(60, 40); // a slab each
      seen.add(body.slab);
      body.giveBack();
    }
    expect(seen.has(kept.slab)).toBe(false);
    kept.giveBack();
    const next = [slabs.take(60, 40).slab, slabs.take(60, 40).slab];
    expect(next).toContain(kept.slab);
  });

  it('does not cut the slab it is still filling from the start again when its bodies come back', () => {
    const slabs = new BodySlabs(100);
    const a = slabs.take(30, 10);
    a.giveBack();
    const b = slabs.take(30, 10);
    expect(b.slab).toBe(a.slab);
    expect(b.at).toBe(30);
    // Nor hands it out for the next slab while `b` is out: 60 + 50 + 30 > 100.
    expect(slabs.take(50, 30).slab === b.slab).toBe(false);
  });

  it('keeps a few given-back slabs of the usual size, and none of an outsized one', () => {
    const slabs = new BodySlabs(100, 2);
    const big = slabs.take(150, 30);
    const usual = [slabs.take(90, 10), slabs.take(90, 10), slabs.take(90, 10)]; // a slab each
    big.giveBack();
    for (const body of usual) body.giveBack(); // the first two are kept; the third is still being filled
    // Kept out, so none comes back while the next is cut. Compared by identity: a Buffer's equality is its bytes.
    const reused = [slabs.take(90, 10).slab, slabs.take(90, 10).slab, slabs.take(90, 10).slab];
    expect(reused[0] === usual[1]?.slab && reused[1] === usual[0]?.slab).toBe(true); // the latest kept first
    expect(reused[2] === usual[2]?.slab || reused[2] === big.slab).toBe(false); // two were kept: the third was not
    expect(reused.map((slab) => slab.length)).toEqual([100, 100, 100]);
  });
});

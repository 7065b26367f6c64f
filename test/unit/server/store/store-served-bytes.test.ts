import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServedBytesCache, type ServedBytes } from '../../../../src/server/store/served-bytes.js';

/** A distinct 1,000-byte JSON body per n, so a mix-up between entries shows. */
const body = (n: number): Buffer => Buffer.from(JSON.stringify({ n, pad: 'x'.repeat(1000 - 15 - String(n).length) }));

describe('ServedBytesCache', () => {
  it('keeps at most its budget raw and serves every entry byte for byte, however cold', () => {
    const cache = new ServedBytesCache(3000);
    const served = Array.from({ length: 10 }, (_, n) => cache.admit(body(n)));
    expect(body(0).length).toBe(1000);
    expect(cache.hotBytes).toBe(3000);
    for (let n = 0; n < 10; n++) {
      expect(served[n]!.bytes().equals(body(n))).toBe(true);
      expect(cache.hotBytes).toBeLessThanOrEqual(3000);
    }
  });

  it('evicts the least recently used: a read keeps an entry hot', () => {
    const cache = new ServedBytesCache(3000);
    const [a, b, c] = [cache.admit(body(1)), cache.admit(body(2)), cache.admit(body(3))];
    // a and c read after b, so b is the oldest when d arrives: only b must need inflating afterwards.
    b.bytes();
    a.bytes();
    c.bytes();
    const aBytes = a.bytes();
    cache.admit(body(4));
    expect(cache.coldReads).toBe(0);
    // Hot: the very Buffer it holds, no copy.
    expect(a.bytes()).toBe(aBytes);
    expect(a.bytes().equals(body(1))).toBe(true);
    expect(c.bytes().equals(body(3))).toBe(true);
    expect(cache.coldReads).toBe(0);
    expect(b.bytes().equals(body(2))).toBe(true);
    expect(cache.coldReads).toBe(1);
  });

  it('keeps bytes that are not valid UTF-8 exactly', () => {
    const cache = new ServedBytesCache(300);
    const every = Buffer.from(Array.from({ length: 256 }, (_, n) => n));
    const served = cache.admit(every);
    expect(served.bytes().equals(every)).toBe(true);
    cache.admit(body(1));
    expect(served.bytes().equals(every)).toBe(true);
    expect(cache.coldReads).toBe(1);
  });

  it('a retired version stops counting against the budget, and stays readable by whoever holds it', () => {
    const cache = new ServedBytesCache(3000);
    const old = cache.admit(body(1));
    cache.admit(body(2));
    old.retire();
    expect(cache.hotBytes).toBe(1000);
    expect(old.bytes().equals(body(1))).toBe(true);
    expect(cache.hotBytes).toBe(1000);
  });

  it('a retired cold version is inflated for its reader but never made hot again', () => {
    const cache = new ServedBytesCache(1000);
    const old = cache.admit(body(1));
    const live = cache.admit(body(2));
    const liveBytes = live.bytes();
    old.retire();
    expect(old.bytes().equals(body(1))).toBe(true);
    expect(cache.coldReads).toBe(1);
    // Had the old version been warmed, it would have pushed the live one out.
    expect(live.bytes().equals(liveBytes)).toBe(true);
    expect(cache.coldReads).toBe(1);
    expect(cache.hotBytes).toBe(1000);
  });

  it('an entry larger than the budget is still kept raw until the next one arrives', () => {
    const cache = new ServedBytesCache(500);
    const big = cache.admit(body(1));
    expect(cache.hotBytes).toBe(1000);
    cache.admit(body(2));
    expect(cache.hotBytes).toBe(1000);
    expect(big.bytes().equals(body(1))).toBe(true);
  });

  it('retiring twice changes nothing the second time', () => {
    const cache = new ServedBytesCache(3000);
    const [a, b] = [cache.admit(body(1)), cache.admit(body(2))];
    a.retire();
    a.retire();
    expect(cache.hotBytes).toBe(1000);
    const c = cache.admit(body(3));
    expect(cache.hotBytes).toBe(2000);
    expect([a, b, c].map((served, n) => served.bytes().equals(body(n + 1)))).toEqual([true, true, true]);
    expect(cache.coldReads).toBe(0);
  });

  /** The same operations on an array kept in least-recently-used order: what hot and cold must be. */
  it('matches a plain least-recently-used list over any sequence of admits, reads and retirements', () => {
    type Op = { kind: 'admit'; size: number } | { kind: 'read' | 'retire'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), size: fc.integer({ min: 100, max: 400 }) }),
      fc.record({ kind: fc.constantFrom('read' as const, 'retire' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 3000 }), fc.array(op, { maxLength: 120 }), (budget, ops) => {
        const cache = new ServedBytesCache(budget);
        const entries: { served: ServedBytes; bytes: Buffer; retired: boolean }[] = [];
        let model: number[] = [];
        let modelCold = 0;
        const retiredRaw = new Set<number>();
        const size = (i: number): number => (entries[i] as { bytes: Buffer }).bytes.length;
        const total = (): number => model.reduce((sum, i) => sum + size(i), 0);
        const warm = (i: number): void => {
          model.push(i);
          while (total() > budget && model[0] !== i) model.shift();
        };
        for (const step of ops) {
          if (step.kind === 'admit') {
            const bytes = Buffer.from(`${entries.length}:`.padEnd(step.size, 'x'));
            entries.push({ served: cache.admit(bytes), bytes, retired: false });
            warm(entries.length - 1);
          } else if (entries.length > 0) {
            const i = step.pick % entries.length;
            const entry = entries[i] as (typeof entries)[number];
            if (step.kind === 'retire') {
              entry.served.retire();
              // A version retired while hot keeps its raw bytes for its readers; one retired cold inflates on each read.
              if (!entry.retired && model.includes(i)) retiredRaw.add(i);
              entry.retired = true;
              model = model.filter((j) => j !== i);
            } else {
              expect(entry.served.bytes().equals(entry.bytes)).toBe(true);
              if (entry.retired) {
                if (!retiredRaw.has(i)) modelCold += 1;
              } else {
                const at = model.indexOf(i);
                if (at === -1) modelCold += 1;
                else model.splice(at, 1);
                warm(i);
              }
            }
          }
          expect(cache.hotBytes).toBe(total());
          expect(cache.coldReads).toBe(modelCold);
        }
      }),
    );
  });
});

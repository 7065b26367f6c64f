/**
 * Seeded randomness for the data generators: the same seed gives the same dashboards and events on every
 * machine, so figures from different runs describe the same work.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** A signed 64-bit integer over the whole range: most magnitudes exceed Number.MAX_SAFE_INTEGER. */
  int64(): bigint;
  hex(length: number): string;
  uuid(): string;
}

/** sfc32: small, fast, and good enough for test data (not for anything secret). */
export function createRng(seed: number): Rng {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ (seed * 31);
  let c = 0xb7e15162 ^ (seed * 17);
  let d = 1;
  const u32 = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) u32();
  const next = (): number => u32() / 4294967296;
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (p) => next() < p,
    int64: () => BigInt.asIntN(64, (BigInt(u32()) << 32n) | BigInt(u32())),
    hex: (length) => {
      let out = '';
      while (out.length < length) out += u32().toString(16).padStart(8, '0');
      return out.slice(0, length).toUpperCase();
    },
    uuid: () => {
      const h = rng.hex(32).toLowerCase();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
  return rng;
}

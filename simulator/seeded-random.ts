/**
 * A small seeded pseudo-random generator (mulberry32). Generated fixtures
 * (the long planning session, the random-bytes broken files) must come out
 * byte-identical on every machine and Node version, which Math.random cannot
 * promise.
 */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** Fills a buffer with random bytes. */
  bytes(length: number): Buffer;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
    bytes: (length) => {
      const buf = Buffer.alloc(length);
      for (let i = 0; i < length; i++) buf[i] = Math.floor(next() * 256);
      return buf;
    },
  };
}

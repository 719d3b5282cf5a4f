/**
 * Seeded randomness for the sandbox's register: mulberry32, so every build of the same day yields the same register,
 * and weight tables for picking one of several outcomes.
 */

export const SEED = 0x5109346b;

// Hot loops read globals through local bindings: in a vm context (jest) every global lookup is slow.
const imul = Math.imul;
const floor = Math.floor;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  private next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  int(min: number, max: number): number {
    return min + floor(this.next() * (max - min + 1));
  }
  pick<T>(items: ArrayLike<T>): T {
    return items[floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Picks a key of a weight table. */
  weighted<K extends string>(table: WeightTable<K>): K {
    const r = this.next() * table.total;
    for (let i = 0; i < table.cumulative.length; i++) if (r < table.cumulative[i]) return table.keys[i];
    return table.keys[table.keys.length - 1];
  }
}

export interface WeightTable<K extends string> {
  keys: K[];
  cumulative: number[];
  total: number;
}

/** Precomputed once: building 20,000 properties draws about 150,000 weighted picks. */
export function weights<K extends string>(w: Record<K, number>): WeightTable<K> {
  const keys = Object.keys(w) as K[];
  const cumulative: number[] = [];
  let total = 0;
  for (const k of keys) cumulative.push((total += w[k]));
  return { keys, cumulative, total };
}

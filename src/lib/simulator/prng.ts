/**
 * The simulator's own seeded random numbers (sfc32 seeded by a string hash), so a seed always builds
 * the same lender — Math.random is never used. Each concern draws from its own stream (`fork`), so
 * adding a draw in one place does not shift every number after it.
 */
export type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: [[item, weight], …]. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** An independent stream derived from this seed and a label. */
  fork(label: string): Rng;
};

function hashSeed(text: string): [number, number, number, number] {
  // cyrb128: four 32-bit words from a string.
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/**
 * A short label for a seed, for codes people read and type (offer codes): a seed of up to four
 * letters or digits as it is, any other seed as four base-36 characters of its hash.
 */
export function seedTag(seed: string | number): string {
  const text = String(seed);
  if (/^[A-Za-z0-9]{1,4}$/.test(text)) return text.toUpperCase();
  return (hashSeed(text)[0] % 36 ** 4).toString(36).toUpperCase().padStart(4, '0');
}

export function createRng(seed: string | number): Rng {
  const label = String(seed);
  let [a, b, c, d] = hashSeed(label);
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted(items) {
      const total = items.reduce((s, [, w]) => s + w, 0);
      let x = next() * total;
      for (const [item, w] of items) {
        x -= w;
        if (x < 0) return item;
      }
      return items[items.length - 1][0];
    },
    fork: (sub) => createRng(`${label}/${sub}`),
  };
  return rng;
}

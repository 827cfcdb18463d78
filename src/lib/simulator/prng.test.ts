import { describe, expect, it } from 'vitest';
import { createRng, seedTag } from './prng.ts';

describe('seeded random numbers', () => {
  it('gives the same numbers for the same seed and different ones for another seed', () => {
    const draw = (seed: string) =>
      Array.from(
        { length: 5 },
        (
          (r) => () =>
            r.int(0, 1_000_000)
        )(createRng(seed)),
      );
    expect(draw('a')).toEqual(draw('a'));
    expect(draw('a')).not.toEqual(draw('b'));
  });

  it('keeps forks independent of draws made on the parent', () => {
    const one = createRng(7);
    const two = createRng(7);
    two.next();
    expect(one.fork('x').next()).toBe(two.fork('x').next());
  });
});

describe('seedTag', () => {
  it('keeps a short seed as it is, upper-cased', () => {
    expect(seedTag(1)).toBe('1');
    expect(seedTag('ab12')).toBe('AB12');
  });

  it('shortens a long seed to four stable characters', () => {
    const tag = seedTag('demo-demo-eu1');
    expect(tag).toMatch(/^[0-9A-Z]{4}$/);
    expect(seedTag('demo-demo-eu1')).toBe(tag);
    expect(seedTag('demo-demo-us1')).not.toBe(tag);
  });
});

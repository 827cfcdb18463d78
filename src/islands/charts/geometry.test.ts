import { describe, expect, test } from 'vitest';
import { groupedBars, linePoints } from './geometry.ts';

describe('chart geometry', () => {
  test('bars are scaled to the largest value, negatives hang below the baseline', () => {
    const g = groupedBars(['Jan', 'Feb'], [{ label: 'net', values: [100n, -100n], className: 'net' }], {
      width: 200,
      height: 132,
    });
    expect(g.baseline).toBe(58);
    expect(g.bars.map((b) => [b.x, b.y, b.height])).toEqual([
      [10, 8, 50],
      [110, 58, 50],
    ]);
    expect(g.labels).toEqual([
      { x: 50, text: 'Jan' },
      { x: 150, text: 'Feb' },
    ]);
  });
  test('a line within a fixed range', () => {
    expect(linePoints([0, 50, 100], { width: 300, height: 132 }, { min: 0, max: 100 })).toBe('50,108 150,58 250,8');
  });
});

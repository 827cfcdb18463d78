import { describe, expect, test } from 'vitest';
import { barLayout, lineLayout, niceTicks } from './layout.ts';

const format = (n: number) => String(n);

describe('niceTicks', () => {
  test('covers the range with round steps', () => {
    expect(niceTicks(0, 97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 0.234)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25]);
    expect(niceTicks(-30, 70)).toEqual([-40, -20, 0, 20, 40, 60, 80]);
  });
  test('a flat or empty range still gives an axis', () => {
    expect(niceTicks(0, 0)).toEqual([0, 1]);
    expect(niceTicks(5, 5)[0]).toBe(0);
    expect(niceTicks(5, 5).at(-1)).toBeGreaterThanOrEqual(5);
  });
});

describe('barLayout', () => {
  test('stacked bars of a category sit on each other and reach the total', () => {
    const { plot, bars } = barLayout({
      categories: ['Jan', 'Feb'],
      series: [
        { label: 'a', values: [10, 20] },
        { label: 'b', values: [30, null] },
      ],
      format,
      stacked: true,
    });
    const jan = bars.filter((b) => b.category === 0);
    expect(jan).toHaveLength(2);
    expect(jan[0].y).toBeCloseTo(jan[1].y + jan[1].height);
    expect(jan[1].y).toBeCloseTo(plot.y(40));
    expect(bars.filter((b) => b.category === 1)).toHaveLength(1);
  });
  test('negative bars go down from zero', () => {
    const { plot, bars } = barLayout({ categories: ['x'], series: [{ label: 'a', values: [-5] }], format });
    expect(bars[0].y).toBeCloseTo(plot.zeroY);
    expect(bars[0].y + bars[0].height).toBeCloseTo(plot.y(-5));
  });
});

describe('lineLayout', () => {
  test('a null value breaks the line', () => {
    const { lines } = lineLayout({
      categories: ['1', '2', '3', '4'],
      series: [{ label: 'a', values: [1, null, 3, 4] }],
      format,
    });
    expect(lines[0].points).toHaveLength(3);
    expect(lines[0].d.match(/M/g)).toHaveLength(2);
  });
  test('x labels are thinned to at most a dozen but keep the last', () => {
    const categories = Array.from({ length: 36 }, (_, i) => `m${i}`);
    const { plot } = lineLayout({ categories, series: [{ label: 'a', values: categories.map((_, i) => i) }], format });
    expect(plot.xLabels.length).toBeLessThanOrEqual(13);
    expect(plot.xLabels.at(-1)?.label).toBe('m35');
  });
});

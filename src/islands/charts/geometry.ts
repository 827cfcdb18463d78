/**
 * Geometry of the profile's small charts, rendered as server-side SVG (no JavaScript shipped). Values
 * are bigint minor units or plain numbers; they are scaled to pixels here and nowhere else.
 */
export type BarSeries = { label: string; values: readonly (bigint | number)[]; className: string };
export type Bar = {
  x: number;
  y: number;
  width: number;
  height: number;
  className: string;
  value: bigint | number;
  seriesLabel: string;
};
export type ChartGeometry = {
  width: number;
  height: number;
  baseline: number;
  bars: Bar[];
  labels: { x: number; text: string }[];
};

const toNumber = (v: bigint | number) => (typeof v === 'bigint' ? Number(v) : v);

/** Grouped bars per category; negative values go below the baseline. */
export function groupedBars(
  categories: readonly string[],
  series: readonly BarSeries[],
  size = { width: 640, height: 200 },
): ChartGeometry {
  const padTop = 8;
  const padBottom = 24;
  const all = series.flatMap((s) => s.values.map(toNumber));
  const max = Math.max(0, ...all);
  const min = Math.min(0, ...all);
  const span = max - min || 1;
  const plot = size.height - padTop - padBottom;
  const baseline = padTop + (max / span) * plot;
  const slot = categories.length ? size.width / categories.length : size.width;
  const barWidth = Math.max(2, (slot * 0.8) / Math.max(1, series.length));
  const bars: Bar[] = [];
  categories.forEach((_, i) => {
    series.forEach((s, j) => {
      const value = s.values[i] ?? 0;
      const h = (Math.abs(toNumber(value)) / span) * plot;
      const x = i * slot + slot * 0.1 + j * barWidth;
      bars.push({
        x: round(x),
        y: round(toNumber(value) >= 0 ? baseline - h : baseline),
        width: round(barWidth),
        height: round(h),
        className: s.className,
        value,
        seriesLabel: s.label,
      });
    });
  });
  return {
    width: size.width,
    height: size.height,
    baseline: round(baseline),
    bars,
    labels: categories.map((text, i) => ({ x: round(i * slot + slot / 2), text })),
  };
}

/** A polyline of points for a line over the same categories (e.g. closing balance, on-time rate). */
export function linePoints(
  values: readonly (bigint | number)[],
  size = { width: 640, height: 200 },
  range?: { min: number; max: number },
): string {
  const padTop = 8;
  const padBottom = 24;
  const nums = values.map(toNumber);
  const max = range?.max ?? Math.max(0, ...nums);
  const min = range?.min ?? Math.min(0, ...nums);
  const span = max - min || 1;
  const slot = values.length ? size.width / values.length : size.width;
  const plot = size.height - padTop - padBottom;
  return nums.map((v, i) => `${round(i * slot + slot / 2)},${round(padTop + ((max - v) / span) * plot)}`).join(' ');
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

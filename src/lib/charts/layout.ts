/**
 * Geometry of the server-rendered SVG charts (src/components/charts): pure functions from the data
 * to coordinates in a fixed viewBox, so the Astro components only draw. The SVG scales with its
 * container (width 100%), which keeps a chart readable from 1024 px to print. No JavaScript.
 */

export type ChartSeries = { label: string; values: readonly (number | null)[] };
export type ChartInput = {
  categories: readonly string[];
  series: readonly ChartSeries[];
  format: (n: number) => string;
  height?: number;
};

export const VIEW_WIDTH = 720;
export const DEFAULT_HEIGHT = 260;
const MARGIN = { top: 12, right: 12, bottom: 34, left: 72 };
/** At most this many x labels are drawn; the others are skipped evenly (the table has them all). */
const MAX_X_LABELS = 12;

/** Round numbers for an axis: 1, 2, 2.5 or 5 × 10^k steps covering [min, max], about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0];
  if (min > max) [min, max] = [max, min];
  if (min === max) {
    if (min === 0) return [0, 1];
    const pad = Math.abs(min) * 0.5;
    min = min > 0 ? 0 : min - pad;
    max = max > 0 ? max + pad : 0;
  }
  const raw = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const start = Math.floor(min / step) * step;
  const end = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let v = start, i = 0; v <= end + step / 2 && i < 50; v += step, i++) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

export type Plot = {
  width: number;
  height: number;
  /** The plotting area inside the margins. */
  area: { x: number; y: number; width: number; height: number };
  yTicks: { y: number; label: string; value: number }[];
  /** Where a category's band starts and its width. */
  band: (index: number) => { x: number; width: number };
  xLabels: { x: number; label: string }[];
  y: (value: number) => number;
  zeroY: number;
};

function plot(input: ChartInput, domainValues: number[]): Plot {
  const height = input.height ?? DEFAULT_HEIGHT;
  const area = {
    x: MARGIN.left,
    y: MARGIN.top,
    width: VIEW_WIDTH - MARGIN.left - MARGIN.right,
    height: height - MARGIN.top - MARGIN.bottom,
  };
  const finite = domainValues.filter((v) => Number.isFinite(v));
  const ticks = niceTicks(Math.min(0, ...finite), Math.max(0, ...finite));
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const y = (value: number) => area.y + area.height - ((value - lo) / (hi - lo || 1)) * area.height;
  const n = Math.max(1, input.categories.length);
  const bandWidth = area.width / n;
  const band = (index: number) => ({ x: area.x + index * bandWidth, width: bandWidth });
  const every = Math.ceil(input.categories.length / MAX_X_LABELS);
  const shown = input.categories.map((_, i) => i).filter((i) => i % every === 0);
  const last = input.categories.length - 1;
  if (last > 0 && shown.at(-1) !== last) {
    // Keep the latest category labelled: it replaces the previous label when they would collide.
    if (last - (shown.at(-1) ?? 0) < every && shown.length > 1) shown.pop();
    shown.push(last);
  }
  const xLabels = shown.map((i) => ({ x: band(i).x + bandWidth / 2, label: input.categories[i] }));
  return {
    width: VIEW_WIDTH,
    height,
    area,
    yTicks: ticks.map((value) => ({ y: y(value), label: input.format(value), value })),
    band,
    xLabels,
    y,
    zeroY: y(0),
  };
}

export type BarRect = {
  x: number;
  y: number;
  width: number;
  height: number;
  series: number;
  category: number;
  value: number;
};

/** Bars side by side per category, or stacked (positives up from zero, negatives down). */
export function barLayout(input: ChartInput & { stacked?: boolean }): { plot: Plot; bars: BarRect[] } {
  const s = input.series;
  const domain: number[] = [];
  input.categories.forEach((_, c) => {
    if (input.stacked) {
      let up = 0;
      let down = 0;
      for (const series of s) {
        const v = series.values[c] ?? 0;
        if (v >= 0) up += v;
        else down += v;
      }
      domain.push(up, down);
    } else for (const series of s) domain.push(series.values[c] ?? 0);
  });
  const p = plot(input, domain);
  const bars: BarRect[] = [];
  input.categories.forEach((_, c) => {
    const band = p.band(c);
    const inner = band.width * 0.72;
    const left = band.x + (band.width - inner) / 2;
    let up = 0;
    let down = 0;
    s.forEach((series, k) => {
      const v = series.values[c];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      if (input.stacked) {
        const from = v >= 0 ? up : down;
        const to = from + v;
        if (v >= 0) up = to;
        else down = to;
        const y1 = p.y(Math.max(from, to));
        const y2 = p.y(Math.min(from, to));
        bars.push({ x: left, y: y1, width: inner, height: Math.max(0, y2 - y1), series: k, category: c, value: v });
      } else {
        const w = inner / s.length;
        const y1 = p.y(Math.max(0, v));
        const y2 = p.y(Math.min(0, v));
        bars.push({
          x: left + k * w,
          y: y1,
          width: Math.max(1, w - 1),
          height: Math.max(0, y2 - y1),
          series: k,
          category: c,
          value: v,
        });
      }
    });
  });
  return { plot: p, bars };
}

export type LinePath = {
  series: number;
  d: string;
  points: { x: number; y: number; value: number; category: number }[];
};

/** One path per series through the middle of each category; a null value breaks the line. */
export function lineLayout(input: ChartInput): { plot: Plot; lines: LinePath[] } {
  const domain = input.series.flatMap((series) => series.values.filter((v): v is number => v !== null));
  const p = plot(input, domain);
  const lines = input.series.map((series, k) => {
    const points: LinePath['points'] = [];
    let d = '';
    let pen = false;
    series.values.forEach((v, c) => {
      if (v === null || v === undefined || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      const band = p.band(c);
      const x = band.x + band.width / 2;
      const y = p.y(v);
      points.push({ x, y, value: v, category: c });
      d += `${pen ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)} `;
      pen = true;
    });
    return { series: k, d: d.trim(), points };
  });
  return { plot: p, lines };
}

/** The series colours, as CSS custom properties (defined in src/styles/global.css, print-safe). */
export const SERIES_COLORS = 8;
export function seriesColor(index: number): string {
  return `var(--chart-${(index % SERIES_COLORS) + 1})`;
}

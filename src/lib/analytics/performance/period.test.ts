import { describe, expect, it } from 'vitest';
import {
  isoWeekOf,
  monthEndOf,
  monthsBetween,
  mondayOfWeek,
  readMonthPeriod,
  readWeekPeriod,
  weeksBetween,
} from './period.ts';

describe('performance periods', () => {
  it('months: ends, ranges, defaults and errors naming the field', () => {
    expect(monthEndOf('2024-02')).toBe('2024-02-29');
    expect(monthsBetween('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(readMonthPeriod(new URLSearchParams(), '2026-11-26')).toEqual({ from: '2025-12', to: '2026-11' });
    expect(() => readMonthPeriod(new URLSearchParams('from=2026-13'), '2026-11-26')).toThrow(/from/);
    expect(() => readMonthPeriod(new URLSearchParams('from=2026-05&to=2026-04'), '2026-11-26')).toThrow();
  });

  it('ISO weeks: the year of the Thursday, round trips to the Monday', () => {
    expect(isoWeekOf('2026-01-01')).toBe('2026-W01');
    expect(isoWeekOf('2021-01-03')).toBe('2020-W53');
    expect(isoWeekOf('2024-12-30')).toBe('2025-W01');
    expect(mondayOfWeek('2025-W01')).toBe('2024-12-30');
    expect(mondayOfWeek('2020-W53')).toBe('2020-12-28');
    expect(mondayOfWeek('2021-W53')).toBeNull();
    expect(mondayOfWeek('nope')).toBeNull();
  });

  it('week periods: whole weeks, default 13, week inside the period', () => {
    const p = readWeekPeriod(new URLSearchParams(), '2026-11-26');
    expect(p).toEqual({ from: '2026-08-31', to: '2026-11-29', week: null });
    expect(weeksBetween(p.from, p.to)).toHaveLength(13);
    expect(readWeekPeriod(new URLSearchParams('week=2026-W48'), '2026-11-26').week).toBe('2026-W48');
    expect(() => readWeekPeriod(new URLSearchParams('week=2020-W01'), '2026-11-26')).toThrow(/week/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  bucketKey,
  CLOSED,
  monthEndOf,
  pairEnds,
  parseCell,
  parseMonth,
  WRITTEN_OFF,
  type Bucket,
} from './delinquency.ts';
import { monthsOnBook } from './vintage.ts';
import { shadeOf, shiftMonth } from './risk-params.ts';

const BUCKETS: Bucket[] = [
  { code: 0, key: 'current', name: null, minDays: 0, maxDays: 0 },
  { code: 1, key: '1', name: '1–30', minDays: 1, maxDays: 30 },
  { code: 31, key: '31', name: '31–60', minDays: 31, maxDays: 60 },
  { code: 91, key: '91', name: '90+', minDays: 91, maxDays: null },
];

describe('delinquency periods and cells', () => {
  it('month ends and the pairs of a period', () => {
    expect(monthEndOf('2024-02-01')).toBe('2024-02-29');
    expect(monthEndOf('2025-12-15')).toBe('2025-12-31');
    expect(pairEnds('2025-11-01', '2026-02-01')).toEqual(['2025-12-31', '2026-01-31', '2026-02-28']);
    expect(pairEnds('2026-01-01', '2026-01-01')).toEqual([]);
    expect(shiftMonth('2026-01-01', -2)).toBe('2025-11-01');
  });

  it('months are YYYY-MM, else a 400 naming the field', () => {
    expect(parseMonth('2026-03', 'from')).toBe('2026-03-01');
    expect(parseMonth(null, 'from')).toBeNull();
    expect(() => parseMonth('2026-13', 'to')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  it('cells are <from>:<to> bucket keys; exits only as destinations', () => {
    expect(parseCell('current:31', BUCKETS)).toEqual({ from: 0, to: 31 });
    expect(parseCell('91:written_off', BUCKETS)).toEqual({ from: 91, to: WRITTEN_OFF });
    expect(parseCell('1:closed', BUCKETS)).toEqual({ from: 1, to: CLOSED });
    expect(parseCell(null, BUCKETS)).toBeNull();
    for (const bad of ['closed:1', '2:31', 'current', 'current:1:2'])
      expect(() => parseCell(bad, BUCKETS)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect([0, 31, CLOSED, WRITTEN_OFF].map(bucketKey)).toEqual(['current', '31', 'closed', 'written_off']);
  });

  it('months on book and shading steps', () => {
    expect(monthsOnBook('2025-11-01', '2025-11-30')).toBe(0);
    expect(monthsOnBook('2025-11-01', '2026-02-28')).toBe(3);
    expect([null, 0, 0.01, 0.5, 1].map(shadeOf)).toEqual([0, 0, 1, 5, 10]);
  });
});

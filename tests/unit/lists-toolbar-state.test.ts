import { describe, expect, it } from 'vitest';
import { applyColumns, applyFilters, rangeValue, splitRange } from '../../src/islands/data-table/toolbar-state.ts';

describe('list toolbar URL edits', () => {
  it('replaces the filters, keeps the rest, resets the position', () => {
    expect(
      applyFilters('tab=overdue&sort=-principal&f.status=ACTIVE&page=3&cursor=abc&cols=customer', {
        principal: '100..',
        status: '',
      }),
    ).toBe('tab=overdue&sort=-principal&cols=customer&f.principal=100..');
    expect(applyFilters('f.status=ACTIVE&q=x', {})).toBe('q=x');
    expect(applyFilters('', { status: 'ACTIVE,APPROVED', disbursed_on: '..' })).toBe('f.status=ACTIVE,APPROVED');
  });

  it('sets or clears the chosen columns', () => {
    expect(applyColumns('tab=overdue&page=2', ['customer', 'principal'])).toBe('tab=overdue&cols=customer,principal');
    expect(applyColumns('tab=overdue&cols=a', [])).toBe('tab=overdue');
  });

  it('joins and splits ranges', () => {
    expect(rangeValue('', '')).toBe('');
    expect(rangeValue('2026-01-01', '')).toBe('2026-01-01..');
    expect(splitRange('..30')).toEqual(['', '30']);
    expect(splitRange(undefined)).toEqual(['', '']);
  });
});

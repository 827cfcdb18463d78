import { describe, expect, it } from 'vitest';
import {
  feeRowsOf,
  feesAsCharges,
  feesBody,
  minorToText,
  penaltiesBody,
  penaltyRowsOf,
  textToMinor,
} from '../../src/islands/products/ChargesEditor.tsx';

describe('product form charges (ChargesEditor helpers)', () => {
  it('converts a flat penalty between the currency and minor units', () => {
    expect(minorToText('1500', 2)).toBe('15.00');
    expect(minorToText('5', 2)).toBe('0.05');
    expect(minorToText('500', 0)).toBe('500');
    expect(textToMinor('15', 2)).toBe('1500');
    expect(textToMinor('15,5', 2)).toBe('1550');
    expect(textToMinor('0.001', 2)).toBeNull();
    expect(textToMinor('abc', 2)).toBeNull();
  });

  it('round-trips stored penalties and fees through the rows', () => {
    const penalties = [
      { code: 'LATE', name: 'Late', kind: 'FLAT', amount: '1500', trigger: 'OVERDUE', graceDays: 3 },
      {
        code: 'PCT',
        name: 'Pct',
        kind: 'PERCENT_OF_OVERDUE_PRINCIPAL',
        percent: '2',
        trigger: 'OVERDUE',
        graceDays: 0,
        frequency: 'WEEKS',
        interval: 2,
      },
    ];
    expect(penaltiesBody(penaltyRowsOf(penalties, 2), 2)).toEqual(penalties);
    const fees = [
      { code: 'OPEN', name: 'Opening', timing: 'DISBURSEMENT', calculation: 'PERCENT_OF_AMOUNT', amount: '1.5' },
    ];
    expect(feesBody(feeRowsOf(fees))).toEqual(fees);
  });

  it('gives the preview only complete fees as schedule charges', () => {
    const rows = feeRowsOf([
      { code: 'A', name: 'A', timing: 'INSTALLMENT', calculation: 'FLAT', amount: '2' },
      { code: 'B', name: '', timing: 'INSTALLMENT', calculation: 'FLAT', amount: '' },
    ]);
    expect(feesAsCharges(rows)).toEqual([
      { name: 'A', type: 'FEE', timing: 'INSTALLMENT', calculation: 'FLAT', amount: '2' },
    ]);
  });
});

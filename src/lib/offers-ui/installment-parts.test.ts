import { describe, expect, it } from 'vitest';
import { installmentParts } from './installment-parts.ts';

const row = (dueDate: string, paid: [string, string], outstanding: string) => ({
  dueDate,
  total: '110.00',
  paid: { principal: paid[0], interest: paid[1], fees: '0.00', penalties: '0.00' },
  outstanding: { total: outstanding },
});

describe('installmentParts', () => {
  it('a fully paid installment is paid whatever its date', () => {
    expect(installmentParts(row('2026-01-10', ['100.00', '10.00'], '0.00'), '2026-03-01', 'EUR')).toEqual({
      paid: '110.00',
      due: '0.00',
      overdue: '0.00',
      state: 'paid',
    });
  });
  it('what is left after the due date is overdue', () => {
    expect(installmentParts(row('2026-02-28', ['40.00', '10.00'], '60.00'), '2026-03-01', 'EUR')).toEqual({
      paid: '50.00',
      due: '0.00',
      overdue: '60.00',
      state: 'overdue',
    });
  });
  it('on the due date it is due, not overdue; later it is upcoming', () => {
    expect(installmentParts(row('2026-03-01', ['0.00', '0.00'], '110.00'), '2026-03-01', 'EUR')).toEqual({
      paid: '0.00',
      due: '110.00',
      overdue: '0.00',
      state: 'due',
    });
    expect(installmentParts(row('2026-04-01', ['0.01', '0.00'], '109.99'), '2026-03-01', 'EUR')).toEqual({
      paid: '0.01',
      due: '109.99',
      overdue: '0.00',
      state: 'upcoming',
    });
  });
  it('reads and writes amounts with the loan currency’s digits', () => {
    const xof = {
      dueDate: '2026-02-01',
      total: '11000',
      paid: { principal: '5000', interest: '1000', fees: '0', penalties: '0' },
      outstanding: { total: '5000' },
    };
    expect(installmentParts(xof, '2026-03-01', 'XOF')).toEqual({
      paid: '6000',
      due: '0',
      overdue: '5000',
      state: 'overdue',
    });
  });
});

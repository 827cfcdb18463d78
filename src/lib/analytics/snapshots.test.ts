import { describe, expect, it } from 'vitest';
import { loanSnapshots, type ScheduleVersion } from './snapshots.ts';

/**
 * A loan whose schedule was rewritten on 2025-02-20: month ends before it are rebuilt from the
 * installments it replaced, later ones from today's, with the rewrite's reallocation added from then on.
 * Amounts in minor units; hand-computed.
 */
const loan = {
  id: 'L1',
  currency: 'EUR',
  disbursed_on: '2025-01-10',
  closed_on: null,
  written_off_on: null,
  version_key: 'p:1',
};
const tx = (
  seq: number,
  type: string,
  date: string,
  amount: number,
  parts: Partial<Record<'p' | 'i' | 'pen', number>> = {},
  installment: number | null = null,
) => ({
  loan_id: 'L1',
  seq: BigInt(seq),
  type,
  transaction_date: date,
  amount: BigInt(amount),
  p: BigInt(parts.p ?? 0),
  i: BigInt(parts.i ?? 0),
  f: 0n,
  pen: BigInt(parts.pen ?? 0),
  over: 0n,
  installment_number: installment,
});
const transactions = [
  tx(1, 'DISBURSEMENT', '2025-01-10', 1000, { p: 1000 }),
  tx(2, 'PENALTY_APPLIED', '2025-02-14', 15, { pen: 15 }, 1),
  tx(3, 'REPAYMENT', '2025-02-18', 300, { p: 275, i: 10, pen: 15 }),
  // Charged after the rewrite: on today's installment 2, never on the replaced ones.
  tx(4, 'PENALTY_APPLIED', '2025-03-15', 20, { pen: 20 }, 2),
];
const row = (number: number, due: string, p: number, i: number, pen: number) => ({
  loan_id: 'L1',
  number,
  due_date: due,
  principal_due: BigInt(p),
  interest_due: BigInt(i),
  fee_due: 0n,
  penalty_due: BigInt(pen),
});
/** Today's installments: the rewrite moved the unpaid principal of installment 1 to installment 2. */
const current = [row(1, '2025-02-10', 275, 10, 15), row(2, '2025-03-10', 725, 5, 20)];
/**
 * What the rewrite replaced (3 more interest on installment 2; the penalty of 14 February included), and
 * its replay moving 5 of what was paid from principal to interest.
 */
const replaced: ScheduleVersion = {
  loan_id: 'L1',
  version: 1,
  replaced_on: '2025-02-20',
  last_seq: 3n,
  due_dates: ['2025-02-10', '2025-03-10'],
  principal_due: [500n, 500n],
  interest_due: [10n, 8n],
  fee_due: [0n, 0n],
  penalty_due: [15n, 0n],
  reallocated: { p: -5n, i: 5n, f: 0n, pen: 0n, credit: 0n },
};
const product = { ranges: [], grace: 0 };
const ends = ['2025-01-31', '2025-02-28', '2025-03-31'];
const pick = (r: ReturnType<typeof loanSnapshots>[number]) => ({
  m: r.month_end,
  p: r.principal_outstanding,
  i: r.interest_outstanding,
  pen: r.penalty_outstanding,
  total: r.total_outstanding,
  days: r.past_due_days,
});

describe('loanSnapshots with schedule versions', () => {
  it('reads each month end from the installments in force then and the reallocation of the last rewrite', () => {
    expect(loanSnapshots(loan, current, transactions, product, ends, [replaced]).map(pick)).toEqual([
      // Replaced installments, without the penalty charged after 31 January (the one of 15 March is not in them).
      { m: '2025-01-31', p: 1000n, i: 18n, pen: 0n, total: 1018n, days: 0 },
      // Today's installments (penalty of 15 March taken off); 275 + (−5) principal and 10 + 5 interest settled.
      { m: '2025-02-28', p: 730n, i: 0n, pen: 0n, total: 730n, days: 0 },
      // Installment 2 (725 + 5 + 20) unpaid since 10 March: 22 days at 1 April.
      { m: '2025-03-31', p: 730n, i: 0n, pen: 20n, total: 750n, days: 22 },
    ]);
  });

  it('a rewrite dated on a month end is in force at its close (the close runs after the day’s commands)', () => {
    const sameDay = {
      ...replaced,
      replaced_on: '2025-01-31',
      reallocated: { p: 0n, i: 0n, f: 0n, pen: 0n, credit: 0n },
    };
    const [first] = loanSnapshots(loan, current, transactions, product, ['2025-01-31'], [sameDay]).map(pick);
    expect(first).toEqual({ m: '2025-01-31', p: 1000n, i: 15n, pen: 0n, total: 1015n, days: 0 });
  });
});

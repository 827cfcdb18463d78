import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { replaceLoanSchedule, type ScheduleRowInput } from '#lib/lending/schedule-sync.ts';
import { loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * replaceLoanSchedule: the one way an active loan's installments are rewritten from a recomputed
 * schedule (recalculation, tranches, reschedules, re-ageing). Payments are replayed onto the new dues,
 * applied charges stay owed, and the ledger follows with balanced entries.
 */
describe.each(testDbKinds())('replaceLoanSchedule on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(async () => {
    await drop();
  });

  test('lower interest after a payment: dues, paid amounts, credit and ledger follow', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 3 });
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '300.00' }));
    await f.db.tenant(f.tenantId, (tx) =>
      applyLoanCharge(tx, f.checker, { loanId, kind: 'fee', amount: '5.00', installmentNumber: 2 }),
    );
    const result = await f.db.tenant(f.tenantId, async (tx) => {
      const state = await openLoanForCommand(tx, f.checker, loanId);
      const rows: ScheduleRowInput[] = state.installments.map((r) => ({
        number: r.number,
        fromDate: r.from_date,
        dueDate: r.due_date,
        principal: r.principal_due,
        interest: r.interest_due / 2n,
        fees: 0n,
        penalties: 0n,
      }));
      const oldInterest = state.installments.reduce((s, r) => s + r.interest_due, 0n);
      const replaced = await replaceLoanSchedule(tx, f.checker, state, rows, {
        date: state.today,
        description: 'Test recalculation',
      });
      const ledger = await loanLedgerBalances(tx, loanId);
      return { replaced, oldInterest, ledger };
    });
    const { replaced, oldInterest, ledger } = result;
    const newInterest = replaced.installments.reduce((s, r) => s + r.interest_due, 0n);
    expect(replaced.dueDelta.interest).toBe(newInterest - oldInterest);
    expect(replaced.dueDelta.interest < 0n).toBe(true);
    expect(replaced.dueDelta.principal).toBe(0n);
    // The applied fee is still owed, on the installment due on or after its old one.
    expect(replaced.installments[1].fee_due).toBe(500n);
    // The 300.00 paid is replayed onto the new dues.
    const paid = replaced.installments.reduce(
      (s, r) => s + r.principal_paid + r.interest_paid + r.fee_paid + r.penalty_paid,
      0n,
    );
    expect(paid).toBe(30000n);
    const o = loanOutstanding(replaced.installments);
    expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
    expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
    expect(ledger.get('FEE_RECEIVABLE') ?? 0n).toBe(o.fees);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  test('refuses a schedule that does not repay the disbursed principal, and changes nothing', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 2 });
    await expect(
      f.db.tenant(f.tenantId, async (tx) => {
        const state = await openLoanForCommand(tx, f.checker, loanId);
        const rows = state.installments.map((r) => ({
          number: r.number,
          fromDate: r.from_date,
          dueDate: r.due_date,
          principal: r.principal_due + 1n,
          interest: r.interest_due,
          fees: 0n,
          penalties: 0n,
        }));
        return replaceLoanSchedule(tx, f.checker, state, rows, { date: state.today, description: 'Bad' });
      }),
    ).rejects.toThrow(/does not repay the disbursed principal/);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { waiveLoanCharges } from '#lib/lending/commands/waive-loan-charges.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { createProductVersioned } from '#lib/lending/product-admin.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/**
 * Charges end to end (issue 17): a product with a disbursement fee, an installment fee and two
 * overdue penalties (a percentage of the overdue principal after 3 days' grace, and a weekly flat
 * one); the disbursed loan carries the fees in its installments and ledger, the daily close charges
 * the penalties, and waiving and reversing keep the ledger equal to the installments.
 */
const FEES = [
  { code: 'OPEN', name: 'Opening fee', timing: 'DISBURSEMENT', calculation: 'PERCENT_OF_AMOUNT', amount: '1.5' },
  { code: 'SVC', name: 'Service fee', timing: 'INSTALLMENT', calculation: 'FLAT', amount: '2.00' },
];
const PENALTIES = [
  {
    code: 'LATE',
    name: 'Late 2%',
    kind: 'PERCENT_OF_OVERDUE_PRINCIPAL',
    percent: '2',
    graceDays: 3,
    trigger: 'OVERDUE',
  },
  {
    code: 'WEEKLY',
    name: 'Weekly late',
    kind: 'FLAT',
    amount: '100',
    frequency: 'WEEKS',
    interval: 1,
    trigger: 'OVERDUE',
  },
];

describe.each(testDbKinds())('charges on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const view = (loanId: string) => db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      businessDate: '2026-01-15',
      product: { fees: FEES, penalties: PENALTIES },
    });
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  test('product charge definitions are validated, naming the field', async () => {
    const base = {
      code: 'BADFEE',
      name: 'Bad fee',
      currency: 'USD',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '1000.00',
      minRepayments: 1,
      maxRepayments: 12,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS' as const,
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD' as const,
      interestMethod: 'DECLINING_BALANCE' as const,
      amortization: 'EQUAL_INSTALLMENTS' as const,
      allowPartialPeriodInterest: false,
      daysInYear: 'ACTUAL' as const,
      daysInMonth: 'ACTUAL' as const,
      graceOnPrincipalPeriods: 0,
      graceOnInterestPaymentPeriods: 0,
      interestFreePeriods: 0,
      graceOnArrearsAgeing: 0,
    };
    const create = (fees: unknown[], penalties: unknown[] = []) =>
      refused(
        db.tenant(f.tenantId, (tx) =>
          createProductVersioned(tx, f.admin, { ...base, fees, penalties } as Parameters<
            typeof createProductVersioned
          >[2]),
        ),
      );
    const fee = FEES[1];
    expect(await create([{ ...fee, amount: '2.001' }])).toMatchObject({ field: 'fees.0.amount' });
    expect(await create([{ ...fee, calculation: 'PERCENT_OF_AMOUNT', amount: '150' }])).toMatchObject({
      field: 'fees.0.amount',
    });
    expect(await create([fee, fee])).toMatchObject({ field: 'fees.1.code' });
    expect(await create([], [{ ...PENALTIES[0], percent: undefined }])).toMatchObject({ field: 'penalties.0.percent' });
  });

  test('disbursement: fee collected at disbursement, installment fees in every installment and the ledger', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const loan = await view(loanId);
    expect(loan.installments.map((i) => i.fees)).toEqual(Array(12).fill('2.00'));
    expect(loan.installments[0]).toMatchObject({ principal: '94.62', interest: '12.00', total: '108.62' });
    expect(loan.outstanding).toMatchObject({ principal: '1200.00', fees: '24.00', penalties: '0.00' });
    expect(loan.transactions.map((t) => [t.type, t.amount])).toEqual([
      ['DISBURSEMENT', '1200.00'],
      ['REPAYMENT_AT_DISBURSEMENT', '18.00'],
    ]);
    const lines = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ account_code: string; debit: bigint; credit: bigint }>(
        `select l.account_code, sum(l.debit)::int8 as debit, sum(l.credit)::int8 as credit from journal_lines l
          where l.loan_id = $1 group by l.account_code order by l.account_code`,
        [loanId],
      ),
    );
    const by = Object.fromEntries(lines.map((l) => [l.account_code, [l.debit, l.credit]]));
    expect(by.FEE_RECEIVABLE).toEqual([2400n, 0n]);
    expect(by.FEE_INCOME).toEqual([0n, 4200n]);
    expect(by.FUND_SOURCE).toEqual([1800n, 120000n]);
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan', loanId));
    expect(audit.at(-1)?.after).toMatchObject({ feesAtDisbursement: '1800' });
  });

  test('the daily close charges overdue penalties after the grace period, once or weekly; waive and reverse', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    // Installment 1 is due 2026-02-15. Closing 02-15 → 02-16: only the weekly one (no grace) is due.
    await setBusinessDate(db, f.tenantId, '2026-02-15');
    await runDailyClose(db, f.tenantId);
    let loan = await view(loanId);
    expect(loan.installments[0].penalties).toBe('1.00');
    // 02-17 → 02-18: still within the 3 days' grace of LATE.
    await setBusinessDate(db, f.tenantId, '2026-02-17');
    await runDailyClose(db, f.tenantId);
    expect((await view(loanId)).installments[0].penalties).toBe('1.00');
    // 02-18 → 02-19: LATE = 2% of the overdue principal 94.62 = 1.8924 → 1.89.
    await setBusinessDate(db, f.tenantId, '2026-02-18');
    await runDailyClose(db, f.tenantId);
    expect((await view(loanId)).installments[0].penalties).toBe('2.89');
    // A week after the first trigger (02-16 → 02-23) the weekly penalty is charged again; LATE is not.
    await setBusinessDate(db, f.tenantId, '2026-02-22');
    await runDailyClose(db, f.tenantId);
    loan = await view(loanId);
    expect(loan.installments[0].penalties).toBe('3.89');
    const charged = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ penalty_code: string; occurrence: number; amount: bigint; business_date: string }>(
        `select penalty_code, occurrence, amount, business_date from close_penalties where loan_id = $1
          order by business_date, penalty_code, occurrence`,
        [loanId],
      ),
    );
    expect(charged).toEqual([
      { penalty_code: 'WEEKLY', occurrence: 1, amount: 100n, business_date: '2026-02-15' },
      { penalty_code: 'LATE', occurrence: 1, amount: 189n, business_date: '2026-02-18' },
      { penalty_code: 'WEEKLY', occurrence: 2, amount: 100n, business_date: '2026-02-22' },
    ]);
    expect((await checkLedger(db)).differences).toEqual([]);

    // A specified-due-date fee lands on the installment whose period holds the date.
    const { transaction: fee } = await db.tenant(f.tenantId, (tx) =>
      applyLoanCharge(tx, f.admin, { loanId, kind: 'fee', amount: '7.50', dueDate: '2026-03-20' }),
    );
    expect(fee.installment_number).toBe(3);
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) =>
          applyLoanCharge(tx, f.admin, { loanId, kind: 'fee', amount: '1.00', dueDate: '2026-01-01' }),
        ),
      ),
    ).toMatchObject({ field: 'dueDate' });
    loan = await view(loanId);
    expect(loan.installments[2].fees).toBe('9.50');

    // Waive every charge, then undo the waiver, then reverse one penalty.
    const { transaction: waiver } = await db.tenant(f.tenantId, (tx) => waiveLoanCharges(tx, f.admin, { loanId }));
    loan = await view(loanId);
    expect(loan.outstanding).toMatchObject({ fees: '0.00', penalties: '0.00' });
    expect((await checkLedger(db)).differences).toEqual([]);
    await db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: waiver.id }));
    loan = await view(loanId);
    expect(loan.outstanding).toMatchObject({ fees: '31.50', penalties: '3.89' });
    const late = loan.transactions.find((t) => t.type === 'PENALTY_APPLIED' && t.amount === '1.89');
    expect(late).toBeDefined();
    await db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: late!.id }));
    loan = await view(loanId);
    expect(loan.outstanding.penalties).toBe('2.00');
    expect(loan.installments[0].penalties).toBe('2.00');
    // The reversed penalty is not charged again by the next close.
    await runDailyClose(db, f.tenantId);
    expect((await view(loanId)).installments[0].penalties).toBe('2.00');
    expect((await checkLedger(db)).differences).toEqual([]);
  });
});

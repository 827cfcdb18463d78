import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { preClosureOf } from '#lib/lending/recalculation.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Interest recalculation on a cumulative loan on the books: Fineract's ClientLoanIntegrationTest
 * testLoanScheduleWithInterestRecalculation_WITH_REST_SAME_AS_REPAYMENT_INTEREST_COMPOUND_NONE_STRATEGY_REDUCE_EMI
 * (lines 3122-3207; 10000, 4 weekly repayments, 24 % a year, REDUCE_EMI_AMOUNT), "today" fixed at
 * 2024-03-18: an on-time repayment, then 4000 paid early lowers the EMI of the last two installments,
 * and the 3551.93 quote closes the loan, with the ledger in balance at each step.
 */
/**
 * And a product with a DAILY rest and interest compounded weekly (REDUCE_NUMBER_OF_INSTALLMENTS): Fineract's
 * testLoanScheduleWithInterestRecalculation_WITH_REST_DAILY_INTEREST_COMPOUND_INTEREST_STRATEGY_REDUCE_NUMBER_OF_INSTALLMENTS
 * (lines 3329-3382): the first installment left overdue, its principal and compounded interest bear
 * interest in period 2; the pay-off quote then closes the loan.
 */
/**
 * And the ..._PRE_CLOSE_INTEREST_PRE_CLOSE_DATE variant (lines 3216-3221, 7872-7948): the 7561.84 quote of
 * 20 March, between two due dates, repaid that day closes the loan.
 */
describe.each(testDbKinds())('cumulative interest recalculation on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      businessDate: '2024-03-04',
      currency: 'USD',
      product: {
        code: 'RECALCW',
        annualInterestRate: '24',
        scheduleType: 'CUMULATIVE',
        repaymentFrequency: 'WEEKS',
        interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
        minRepayments: 1,
        interestRecalculation: true,
        recalculationRestFrequency: 'SAME_AS_REPAYMENT_PERIOD',
        recalculationCompounding: 'NONE',
        recalculationRescheduleStrategy: 'REDUCE_EMI_AMOUNT',
        preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
      },
    });
  });
  afterAll(async () => {
    await drop();
  });

  async function compoundingProduct(allocationStrategy?: 'rbi-india-strategy') {
    const { createProduct } = await import('#lib/lending/products.ts');
    const { checkProduct } = await import('#lib/lending/product-admin.ts');
    const input = {
      code: allocationStrategy ? 'RECALCI' : 'RECALCD',
      name: 'Daily rest, weekly compounding',
      ...(allocationStrategy ? { allocationStrategy } : {}),
      currency: 'USD',
      digitsAfterDecimal: 2,
      minPrincipal: 10_000n,
      maxPrincipal: 10_000_000n,
      minRepayments: 1,
      maxRepayments: 12,
      annualInterestRate: '24',
      scheduleType: 'CUMULATIVE' as const,
      repaymentFrequency: 'WEEKS' as const,
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD' as const,
      interestRecalculation: true,
      recalculationRestFrequency: 'DAILY' as const,
      recalculationCompounding: 'INTEREST' as const,
      recalculationCompoundingFrequency: 'WEEKLY' as const,
      recalculationCompoundingInterval: 1,
      recalculationRescheduleStrategy: 'REDUCE_NUMBER_OF_INSTALLMENTS' as const,
      preClosureStrategy: 'TILL_PRE_CLOSURE_DATE' as const,
    };
    // The product rules (and the engine behind them) accept the options.
    checkProduct(input);
    return f.db.tenant(f.tenantId, (tx) => createProduct(tx, f.tenantId, input));
  }

  const state = (loanId: string) => f.db.tenant(f.tenantId, (tx) => openLoanForCommand(tx, f.checker, loanId));
  const dues = (rows: Awaited<ReturnType<typeof state>>['installments']) =>
    rows.map((r) => [r.due_date, r.principal_due, r.interest_due]);
  async function ledgerMatches(loanId: string) {
    const s = await state(loanId);
    const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
    const o = loanOutstanding(s.installments);
    expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
    expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  }

  /** Today's pre-closure quote is `expected`; paying `amount` closes the loan with nothing owed. */
  async function quoteAndClose(loanId: string, expected: Record<string, bigint>, amount: string, today = '2024-03-18') {
    expect(preClosureOf(await state(loanId), today, today)).toMatchObject(expected);
    const paid = await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount }));
    expect(paid.loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    expect(loanOutstanding((await state(loanId)).installments)).toEqual({
      principal: 0n,
      interest: 0n,
      fees: 0n,
      penalties: 0n,
    });
    await ledgerMatches(loanId);
  }

  test('Fineract REDUCE_EMI scenario: on time, early, quote, closed', async () => {
    await setBusinessDate(db, f.tenantId, '2024-03-04');
    const { loanId } = await f.disbursedLoan({ principal: '10000.00', numberOfRepayments: 4 });
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-03-11', 248276n, 4615n],
      ['2024-03-18', 249422n, 3469n],
      ['2024-03-25', 250573n, 2318n],
      ['2024-04-01', 251729n, 1162n],
    ]);
    await setBusinessDate(db, f.tenantId, '2024-03-11');
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '2528.91' }));
    await ledgerMatches(loanId);

    await setBusinessDate(db, f.tenantId, '2024-03-13');
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '4000.00' }));
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-03-11', 248276n, 4615n],
      ['2024-03-18', 396531n, 3469n],
      ['2024-03-25', 177188n, 1639n],
      ['2024-04-01', 178005n, 822n],
    ]);
    await ledgerMatches(loanId);

    await setBusinessDate(db, f.tenantId, '2024-03-18');
    await quoteAndClose(loanId, { principal: 355193n, interest: 0n, total: 355193n }, '3551.93');
  });

  test('Fineract DAILY rest with weekly compounding: overdue, compounded, quoted, closed', async () => {
    await setBusinessDate(db, f.tenantId, '2024-03-04');
    const product = await compoundingProduct();
    const { loanId } = await f.disbursedLoan({ principal: '10000.00', numberOfRepayments: 4, productId: product.id });
    await setBusinessDate(db, f.tenantId, '2024-03-18');
    // 100 paid on the second due date: interest of installment 1, then its principal.
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '100.00' }));
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-03-11', 248276n, 4615n],
      ['2024-03-18', 248254n, 4637n],
      ['2024-03-25', 250567n, 2324n],
      ['2024-04-01', 252903n, 1167n],
    ]);
    await ledgerMatches(loanId);

    // 10000 - 53.85 principal + the 46.37 of period 2 (installment 1's interest is paid).
    await quoteAndClose(loanId, { principal: 994615n, interest: 4637n, total: 999252n }, '9992.52');
  });

  test('Fineract PRE_CLOSE_INTEREST_PRE_CLOSE_DATE: the 7561.84 quote paid between due dates closes the loan', async () => {
    await setBusinessDate(db, f.tenantId, '2024-03-04');
    const { loanId } = await f.disbursedLoan({ principal: '10000.00', numberOfRepayments: 4 });
    await setBusinessDate(db, f.tenantId, '2024-03-11');
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '2528.91' }));
    await ledgerMatches(loanId);
    // 20 March, two days into period 3 with installment 2 overdue (lines 7925-7948 of the test; the
    // quote is line 3218): 7517.24 principal + 34.69 overdue interest + 9.91 for 2 of period 3's 7 days.
    await setBusinessDate(db, f.tenantId, '2024-03-20');
    await quoteAndClose(loanId, { principal: 751724n, interest: 4460n, total: 756184n }, '7561.84', '2024-03-20');
    // Installment 3 falls due on the pay-off day with the interest to that day; installment 4 is gone.
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-03-11', 248276n, 4615n],
      ['2024-03-18', 249422n, 3469n],
      ['2024-03-20', 502302n, 991n],
    ]);
  });

  /**
   * RBI India (interest first): Fineract's
   * testLoanScheduleWithInterestRecalculation_WITH_REST_DAILY_INTEREST_COMPOUND_INTEREST_STRATEGY_REDUCE_NUMBER_OF_INSTALLMENTS
   * (lines 3395-3436; tests/fixtures/fineract-cumulative-interest-first-cases.json): the 4000 paid on
   * 13 March, looked at on the 18th, closes an installment on its day; the loan stores it as
   * installment 2 (the next ones move up a number) and the quote closes the loan.
   */
  /** A 10000 loan of the RBI India product disbursed on 4 March, looked at on the 18th, installment 1 paid on time. */
  let rbiProduct: { id: string } | null = null;
  async function rbiLoan() {
    await setBusinessDate(db, f.tenantId, '2024-03-04');
    rbiProduct ??= await compoundingProduct('rbi-india-strategy');
    const { loanId } = await f.disbursedLoan({
      principal: '10000.00',
      numberOfRepayments: 4,
      productId: rbiProduct.id,
    });
    await setBusinessDate(db, f.tenantId, '2024-03-18');
    const repay = (date: string, amount: string) =>
      f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount, date }));
    await repay('2024-03-11', '2528.91');
    return { loanId, repay };
  }

  test('Fineract RBI India: a repayment between due dates is stored as an installment of its own', async () => {
    const { loanId, repay } = await rbiLoan();
    await repay('2024-03-13', '4000.00');
    const rows = (await state(loanId)).installments;
    expect(rows.map((r) => [r.number, r.from_date, r.due_date, r.principal_due, r.interest_due])).toEqual([
      [1, '2024-03-04', '2024-03-11', 248276n, 4615n],
      [2, '2024-03-11', '2024-03-13', 399009n, 991n],
      [3, '2024-03-13', '2024-03-18', 251731n, 1160n],
      [4, '2024-03-18', '2024-03-25', 100984n, 466n],
    ]);
    expect(rows.map((r) => r.principal_paid + r.interest_paid)).toEqual([252891n, 400000n, 0n, 0n]);
    await ledgerMatches(loanId);
    await quoteAndClose(loanId, { principal: 352715n, interest: 1160n, total: 353875n }, '3538.75');
  });

  test('RBI India: a split-off installment does not lengthen the loan when it is recalculated again', async () => {
    const { loanId, repay } = await rbiLoan();
    // 5.00 of the 9.91 interest to 13 March: an installment of its own, no principal; five in all.
    await repay('2024-03-13', '5.00');
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-03-11', 248276n, 4615n],
      ['2024-03-13', 0n, 991n],
      ['2024-03-18', 250414n, 2477n],
      ['2024-03-25', 250577n, 2314n],
      ['2024-04-01', 250733n, 1157n],
    ]);
    await ledgerMatches(loanId);
    // Recalculated again on the 18th: still the four weekly periods of the loan and the split-off one.
    await repay('2024-03-18', '2528.91');
    const after = (await state(loanId)).installments;
    expect(after.map((r) => [r.number, r.due_date])).toEqual([
      [1, '2024-03-11'],
      [2, '2024-03-13'],
      [3, '2024-03-18'],
      [4, '2024-03-25'],
      [5, '2024-04-01'],
    ]);
    expect(after.reduce((s, r) => s + r.principal_due, 0n)).toBe(1_000_000n);
    await ledgerMatches(loanId);
  });
});

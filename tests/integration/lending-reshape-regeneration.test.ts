import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { reAgeLoan, reAmortizeLoan, undoReAmortizeLoan } from '#lib/lending/commands/reage-loan.ts';
import {
  approveRescheduleRequest,
  previewLoanReschedule,
  submitRescheduleRequest,
} from '#lib/lending/commands/reschedule-loan.ts';
import { disburseNextTranche, setLoanTranches } from '#lib/lending/commands/tranches.ts';
import { varyInstallments } from '#lib/lending/commands/vary-installments.ts';
import { loadInstallments } from '#lib/lending/installments.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { loanPreClosure } from '#lib/lending/recalculation.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/**
 * A standing re-age / re-amortisation is not lost when something lays the schedule out again:
 *  - interest recalculation (after a repayment, a reversal, or the daily close) builds on top of it: the
 *    schedule is recomputed on the periods the loan had before the change and the change is applied again
 *    with the engine's reage functions, as Fineract's processor replays a REAGE / REAMORTIZE transaction
 *    whenever it rebuilds a schedule (LoanReAging.feature "reverse-replay scenario 1", lines 213-252);
 *  - a reschedule (request or approval) and a tranche disbursement lay the installments out from the
 *    loan's terms in a way the change cannot be put back on: refused, 409 naming the change to undo;
 *  - installment variations apply only before disbursement, when no re-age can exist: refused as before.
 * Loans: 0 %, progressive, advanced payment allocation (the only loans Fineract lets one re-age).
 */
describe.each(testDbKinds())('re-age and re-amortisation against schedule regeneration on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const at = (date: string) => setBusinessDate(db, f.tenantId, date);
  const rows = async (loanId: string) =>
    (await db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId))).map((i) => [
      i.due_date,
      i.principal_due,
      i.principal_paid,
    ]);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      currency: 'EUR',
      businessDate: '2024-01-01',
      product: {
        code: 'RECALC0',
        annualInterestRate: '0',
        scheduleType: 'PROGRESSIVE',
        interestCalculationPeriod: 'DAILY',
        daysInYear: '360',
        daysInMonth: '30',
        repaymentEvery: 15,
        repaymentFrequency: 'DAYS',
        minRepayments: 1,
        installmentAmountInMultiplesOf: 1,
        interestRecalculation: true,
        recalculationRestFrequency: 'DAILY',
        preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
        allocationStrategy: 'advanced-payment-allocation-strategy',
      },
    });
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  const reAged = [
    ['2024-01-16', 0n, 0n],
    ['2024-01-31', 0n, 0n],
    ['2024-02-15', 0n, 0n],
    ['2024-03-01', 25000n, 0n],
    ['2024-04-01', 25000n, 0n],
    ['2024-05-01', 25000n, 0n],
    ['2024-06-01', 25000n, 0n],
  ];

  async function reAgedLoan() {
    await at('2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await at('2024-02-20');
    await db.tenant(f.tenantId, (tx) =>
      reAgeLoan(tx, f.admin, {
        loanId,
        startDate: '2024-03-01',
        frequencyType: 'MONTHS',
        frequencyNumber: 1,
        numberOfInstallments: 4,
      }),
    );
    expect(await rows(loanId)).toEqual(reAged);
    return loanId;
  }

  test('recalculation after a repayment, its reversal and the daily close keeps the re-age', async () => {
    const loanId = await reAgedLoan();
    await at('2024-03-01');
    const { transaction } = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '250.00' }));
    const paid = reAged.map((r) => (r[0] === '2024-03-01' ? [r[0], r[1], 25000n] : r));
    expect(await rows(loanId)).toEqual(paid);

    // The close of 1 April: 250.00 overdue on a recalculating product, the schedule is recomputed as
    // of 2 April; at 0 % it is the re-aged one still, so nothing is written.
    await at('2024-04-01');
    const close = await runDailyClose(db, f.tenantId, { businessDate: '2024-04-01', originate: false });
    expect(close.stats.interestRecalculated).toBe(0);
    expect(await rows(loanId)).toEqual(paid);
    const quote = await db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    expect(quote).toMatchObject({ principal: '750.00', interest: '0.00', total: '750.00' });

    await db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.checker, { loanId, transactionId: transaction.id }),
    );
    expect(await rows(loanId)).toEqual(reAged);
  });

  test('recalculation after a repayment keeps a re-amortisation', async () => {
    await at('2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await at('2024-01-20');
    await db.tenant(f.tenantId, (tx) => reAmortizeLoan(tx, f.admin, { loanId }));
    const reAmortized = await rows(loanId);
    // The 333.00 past due on 16 January is spread over the two installments left: 166.50 in multiples
    // of 1 is 166.00, the last one takes the remainder, 167.00 (the engine's re-amortisation rule).
    expect(reAmortized.map((r) => r[1])).toEqual([0n, 49900n, 50100n]);
    await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '100.00' }));
    expect(await rows(loanId)).toEqual([
      ['2024-01-16', 0n, 0n],
      ['2024-01-31', 49900n, 10000n],
      ['2024-02-15', 50100n, 0n],
    ]);
  });

  test('a reschedule of a re-aged loan is refused, submitted or approved: undo the re-age first', async () => {
    const loanId = await reAgedLoan();
    const input = { rescheduleFromDate: '2024-04-01', extraTerms: 1 };
    // One after the other: a refusal started before the loop awaits it would be an unhandled rejection.
    for (const run of [
      () => db.tenant(f.tenantId, (tx) => previewLoanReschedule(tx, f.maker, loanId, input)),
      () => db.tenant(f.tenantId, (tx) => submitRescheduleRequest(tx, f.maker, loanId, input)),
    ]) {
      expect(await refused(run())).toMatchObject({ code: 'CONFLICT', details: { reason: 'undo_reage_first' } });
    }
    // A request submitted before the re-age cannot be approved after it either.
    const [request] = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ id: string }>(
        `insert into loan_reschedule_requests (tenant_id, loan_id, reschedule_from_date, extra_terms, grace_on_principal,
           grace_on_interest, submitted_on, submitted_by)
         values ($1, $2, '2024-04-01', 1, 0, 0, '2024-02-19', $3) returning id`,
        [f.tenantId, loanId, f.maker.userId],
      ),
    );
    const error = await refused(
      db.tenant(f.tenantId, (tx) => approveRescheduleRequest(tx, f.checker, loanId, request.id)),
    );
    expect(error).toMatchObject({ code: 'CONFLICT', details: { reason: 'undo_reage_first' } });
    expect(error.message).toMatch(/undo the re-age first/);
    expect(await rows(loanId)).toEqual(reAged);
  });

  test('installment variations are for loans not yet disbursed: refused on a re-aged loan', async () => {
    const loanId = await reAgedLoan();
    expect(
      await refused(db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.maker, { loanId, variations: [] }))),
    ).toMatchObject({ code: 'CONFLICT', details: { reason: 'wrong_state' } });
  });

  test('the next tranche of a re-amortised loan is refused until the re-amortisation is undone', async () => {
    const t = await createLendingFixture(db, {
      currency: 'EUR',
      businessDate: '2026-01-15',
      product: {
        code: 'TRANCHE0',
        annualInterestRate: '0',
        scheduleType: 'PROGRESSIVE',
        multiDisbursement: true,
        maxTranches: 3,
        allocationStrategy: 'advanced-payment-allocation-strategy',
      },
    });
    const { loanId } = await t.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    await t.db.tenant(t.tenantId, (tx) =>
      setLoanTranches(tx, t.checker, {
        loanId,
        tranches: [
          { date: '2026-01-15', amount: '700.00' },
          { date: '2026-03-01', amount: '500.00' },
        ],
      }),
    );
    await t.db.tenant(t.tenantId, (tx) => disburseLoan(tx, t.checker, { loanId }));
    await setBusinessDate(db, t.tenantId, '2026-02-20');
    await t.db.tenant(t.tenantId, (tx) => reAmortizeLoan(tx, t.admin, { loanId }));
    await setBusinessDate(db, t.tenantId, '2026-03-01');
    const error = await refused(t.db.tenant(t.tenantId, (tx) => disburseNextTranche(tx, t.checker, { loanId })));
    expect(error).toMatchObject({ code: 'CONFLICT', details: { reason: 'undo_reamortization_first' } });
    expect(error.message).toMatch(/undo the re-amortisation first/);

    await t.db.tenant(t.tenantId, (tx) => undoReAmortizeLoan(tx, t.admin, { loanId }));
    const next = await t.db.tenant(t.tenantId, (tx) => disburseNextTranche(tx, t.checker, { loanId }));
    expect(next.transaction.principal_portion).toBe(50000n);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { disburseNextTranche, loadTranches, setLoanTranches } from '#lib/lending/commands/tranches.ts';
import { loadInstallments, loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { generateSchedule, parseTerms } from '#lib/schedule/index.ts';
import { simulateNextTranche } from '#lib/simulator/features/tranches.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Multi-disbursement loans end to end: a tranche product, a loan approved for 1,200.00 with two
 * tranches, the first paid out by the disbursement, a repayment, then the second tranche. The loan's
 * installments must be the engine's schedule for both disbursements, the repayment replayed on them,
 * the ledger in line (npm run ledger:check), the audit trail written.
 */
describe.each(testDbKinds())('tranches on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
  });
  afterAll(async () => {
    await drop();
  });

  for (const scheduleType of ['CUMULATIVE', 'PROGRESSIVE'] as const) {
    test(`${scheduleType}: approve with 2 tranches → disburse → repay → disburse the second`, async () => {
      const f: LendingFixture = await createLendingFixture(db, {
        businessDate: '2026-01-15',
        product: { scheduleType, multiDisbursement: true, maxTranches: 3 },
      });
      const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
      const { tranches } = await f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '700.00' },
            { date: '2026-03-01', amount: '500.00' },
          ],
        }),
      );
      expect(tranches.map((t) => [t.number, t.amount, t.disbursed_on])).toEqual([
        [1, 70000n, null],
        [2, 50000n, null],
      ]);

      await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
      let installments = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
      expect(installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(70000n);

      await setBusinessDate(db, f.tenantId, '2026-02-15');
      const firstDue = installments[0].principal_due + installments[0].interest_due;
      await f.db.tenant(f.tenantId, (tx) =>
        repayLoan(tx, f.checker, { loanId, amount: (Number(firstDue) / 100).toFixed(2) }),
      );

      await setBusinessDate(db, f.tenantId, '2026-03-01');
      const result = await f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }));
      expect(result.transaction.type).toBe('DISBURSEMENT');
      expect(result.transaction.principal_portion).toBe(50000n);
      expect(result.tranches.map((t) => t.disbursed_on)).toEqual(['2026-01-15', '2026-03-01']);

      // The installments are the engine's schedule for both disbursements.
      const expected = generateSchedule(
        parseTerms({
          ...result.loan.terms,
          principal: '1200.00',
          disbursements: [
            { date: '2026-01-15', amount: '700.00' },
            { date: '2026-03-01', amount: '500.00' },
          ],
        }),
      );
      installments = result.installments;
      expect(installments.map((i) => [i.due_date, i.principal_due, i.interest_due])).toEqual(
        expected.installments.map((i) => [i.dueDate, i.principal, i.interest]),
      );
      expect(expected.disbursements?.map((d) => d.amount)).toEqual([70000n, 50000n]);
      // The repayment of the first installment is replayed onto the new dues.
      const paid = installments.reduce((s, i) => s + i.principal_paid + i.interest_paid, 0n);
      expect(paid).toBe(firstDue);

      // Ledger: portfolio = principal outstanding, receivable = interest outstanding, whole ledger checks.
      const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
      const o = loanOutstanding(installments);
      expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
      expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
      expect(o.principal).toBe(120000n - (paid - installments.reduce((s, i) => s + i.interest_paid, 0n)));
      expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

      const audit = await f.db.tenant(f.tenantId, (tx) =>
        tx.query<{ action: string }>(
          `select action from audit_log where object_id = $1 and action like 'loan.tranche%' order by occurred_at`,
          [loanId],
        ),
      );
      expect(audit.map((a) => a.action)).toEqual(['loan.tranches.set', 'loan.tranche.disburse']);

      // Nothing left to pay out.
      await expect(f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }))).rejects.toThrow(
        /Every tranche/,
      );
    });
  }

  test('refusals: not a tranche product, a total other than the approved amount, too many tranches', async () => {
    const plain = await createLendingFixture(db, { businessDate: '2026-01-15' });
    const { loanId: plainLoan } = await plain.approvedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await expect(
      plain.db.tenant(plain.tenantId, (tx) =>
        setLoanTranches(tx, plain.checker, {
          loanId: plainLoan,
          tranches: [{ date: '2026-01-15', amount: '1000.00' }],
        }),
      ),
    ).rejects.toThrow(/does not pay loans out in tranches/);

    const f = await createLendingFixture(db, {
      businessDate: '2026-01-15',
      product: { multiDisbursement: true, maxTranches: 2 },
    });
    const { loanId } = await f.approvedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await expect(
      f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '600.00' },
            { date: '2026-02-01', amount: '300.00' },
          ],
        }),
      ),
    ).rejects.toThrow(/add up to the approved amount/);
    await expect(
      f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '400.00' },
            { date: '2026-02-01', amount: '300.00' },
            { date: '2026-02-10', amount: '300.00' },
          ],
        }),
      ),
    ).rejects.toThrow(/at most 2/);
    expect(await f.db.tenant(f.tenantId, (tx) => loadTranches(tx, loanId))).toEqual([]);
    // Without tranches a tranche product's loan disburses its whole principal, as before.
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    await expect(f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }))).rejects.toThrow(
      /Every tranche/,
    );
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  test('the simulator pays a tranche out once it is expected, through the command', async () => {
    const f = await createLendingFixture(db, {
      businessDate: '2026-01-15',
      product: { scheduleType: 'PROGRESSIVE', multiDisbursement: true },
    });
    const { loanId } = await f.approvedLoan({ principal: '3000.00', numberOfRepayments: 12 });
    await f.db.tenant(f.tenantId, async (tx) => {
      await setLoanTranches(tx, f.checker, {
        loanId,
        tranches: [
          { date: '2026-01-15', amount: '1000.00' },
          { date: '2026-02-20', amount: '1000.00' },
          { date: '2026-04-10', amount: '1000.00' },
        ],
      });
      await disburseLoan(tx, f.checker, { loanId });
    });
    await setBusinessDate(db, f.tenantId, '2026-02-10');
    expect(await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId))).toBeNull();
    await setBusinessDate(db, f.tenantId, '2026-02-20');
    const paid = await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId));
    expect(paid).toMatchObject({ number: 2, date: '2026-02-20', amount: 100000n });
    expect(await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId))).toBeNull();
    const installments = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
    expect(installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(200000n);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });
});

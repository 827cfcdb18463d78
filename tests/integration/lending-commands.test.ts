import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { waiveLoanInterest } from '#lib/lending/commands/waive-loan-interest.ts';
import { waiveLoanCharges } from '#lib/lending/commands/waive-loan-charges.ts';
import { writeOffLoan } from '#lib/lending/commands/write-off-loan.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { refundCreditBalance } from '#lib/lending/commands/refund-credit-balance.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

describe.each(testDbKinds())('loan money commands on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const view = (loanId: string) => db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15', product: { allowOverpayment: true } });
  });
  afterAll(async () => {
    // The ledger agrees with every loan after all the commands of this file.
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  test('disbursement builds the schedule, posts a balanced entry and activates the loan', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const error = await refused(
      db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId, date: '2026-01-16' })),
    );
    expect(error).toMatchObject({ code: 'BAD_REQUEST', field: 'date' });
    await db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    const loan = await view(loanId);
    expect(loan.status).toBe('ACTIVE');
    expect(loan.disbursedOn).toBe('2026-01-15');
    expect(loan.installments).toHaveLength(12);
    expect(loan.installments[0]).toMatchObject({
      number: 1,
      fromDate: '2026-01-15',
      dueDate: '2026-02-15',
      principal: '94.62',
      interest: '12.00',
      total: '106.62',
    });
    expect(loan.installments[11].dueDate).toBe('2027-01-15');
    expect(loan.outstanding).toEqual({
      principal: '1200.00',
      interest: '79.42',
      fees: '0.00',
      penalties: '0.00',
      total: '1279.42',
    });
    expect(loan.transactions.map((t) => [t.type, t.amount, t.date])).toEqual([
      ['DISBURSEMENT', '1200.00', '2026-01-15'],
    ]);
    // A second disbursement is refused by the state machine.
    expect((await refused(db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId })))).details).toEqual({
      reason: 'wrong_state',
    });
  });

  test('repayments follow penalties → fees → interest → principal, oldest first; full repayment closes the loan', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await setBusinessDate(db, f.tenantId, '2026-02-20');
    await db.tenant(f.tenantId, (tx) =>
      applyLoanCharge(tx, f.admin, { loanId, kind: 'penalty', amount: '5.00', installmentNumber: 1 }),
    );
    const { transaction } = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '20.00' }));
    expect(transaction).toMatchObject({
      type: 'REPAYMENT',
      amount: 2000n,
      penalty_portion: 500n,
      interest_portion: 1200n,
      principal_portion: 300n,
      transaction_date: '2026-02-20',
    });
    let loan = await view(loanId);
    expect(loan.installments[0].paid).toEqual({
      principal: '3.00',
      interest: '12.00',
      fees: '0.00',
      penalties: '5.00',
    });
    expect(loan.outstanding.total).toBe('1264.42');
    // Dates after the business date, or before the last transaction, are refused naming the field.
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1.00', date: '2026-02-21' })),
      ),
    ).toMatchObject({ field: 'date' });
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1.00', date: '2026-02-19' })),
      ),
    ).toMatchObject({ field: 'date' });
    expect(
      await refused(db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '0.00' }))),
    ).toMatchObject({ field: 'amount' });
    expect(
      await refused(db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1.001' }))),
    ).toMatchObject({ field: 'amount' });

    await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1264.42' }));
    loan = await view(loanId);
    expect(loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    expect(loan.closedOn).toBe('2026-02-20');
    expect(loan.outstanding.total).toBe('0.00');
    expect(loan.installments.every((i) => i.obligationsMetOn === '2026-02-20')).toBe(true);
    expect(
      (await refused(db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '1.00' })))).details,
    ).toEqual({ reason: 'wrong_state' });
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan', loanId));
    expect(audit.map((a) => a.action)).toEqual(['loan.disburse', 'loan.apply_penalty', 'loan.repay', 'loan.repay']);
    expect(audit[2]).toMatchObject({ actor_id: f.checker.userId, ip: '127.0.0.1', outcome: 'success' });
    expect(audit[3].after).toMatchObject({ status: 'CLOSED_OBLIGATIONS_MET' });
    await setBusinessDate(db, f.tenantId, f.businessDate);
  });

  test('an overpayment leaves a credit balance and the OVERPAID state; reversing it reopens the loan', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '100.00', numberOfRepayments: 1 });
    const { transaction } = await db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, { loanId, amount: '150.00', confirmOverpayment: true }),
    );
    let loan = await view(loanId);
    expect(loan.outstanding.total).toBe('0.00');
    expect(loan).toMatchObject({ status: 'OVERPAID', creditBalance: '49.00' }); // 100.00 + 1.00 interest owed
    expect(transaction.overpayment_portion).toBe(4900n);
    await db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: transaction.id }));
    loan = await view(loanId);
    expect(loan).toMatchObject({ status: 'ACTIVE', creditBalance: '0.00', closedOn: null });
    expect(loan.outstanding.total).toBe('101.00');
    expect(loan.transactions.map((t) => [t.type, t.isReversed])).toEqual([
      ['DISBURSEMENT', false],
      ['REPAYMENT', true],
      ['REVERSAL', false],
    ]);
    expect(loan.transactions[2].reversesId).toBe(transaction.id);
    expect(
      (
        await refused(
          db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: transaction.id })),
        )
      ).details,
    ).toEqual({ reason: 'already_reversed' });
    expect(
      (
        await refused(
          db.tenant(f.tenantId, (tx) =>
            reverseLoanTransaction(tx, f.admin, { loanId, transactionId: loan.transactions[0].id }),
          ),
        )
      ).details,
    ).toEqual({ reason: 'not_reversible' });
  });

  test('refunding the credit balance closes an overpaid loan; a repayment reversal then waits for the refund reversal', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '100.00', numberOfRepayments: 1 });
    const pay = await db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, { loanId, amount: '121.00', confirmOverpayment: true }),
    );
    expect(
      (await refused(db.tenant(f.tenantId, (tx) => refundCreditBalance(tx, f.admin, { loanId, amount: '20.01' }))))
        .field,
    ).toBe('amount');
    expect((await view(loanId)).actions.find((a) => a.action === 'refundCredit')).toMatchObject({ allowed: true });
    await db.tenant(f.tenantId, (tx) => refundCreditBalance(tx, f.admin, { loanId, amount: '5.00' }));
    expect(await view(loanId)).toMatchObject({ status: 'OVERPAID', creditBalance: '15.00' });
    const refund = await db.tenant(f.tenantId, (tx) => refundCreditBalance(tx, f.admin, { loanId }));
    expect(refund.transaction).toMatchObject({ type: 'CREDIT_BALANCE_REFUND', amount: 1500n });
    expect(await view(loanId)).toMatchObject({ status: 'CLOSED_OBLIGATIONS_MET', creditBalance: '0.00' });
    expect(
      (
        await refused(
          db.tenant(f.tenantId, (tx) =>
            reverseLoanTransaction(tx, f.admin, { loanId, transactionId: pay.transaction.id }),
          ),
        )
      ).details,
    ).toEqual({ reason: 'refund_first' });
    await db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.admin, { loanId, transactionId: refund.transaction.id }),
    );
    expect(await view(loanId)).toMatchObject({ status: 'OVERPAID', creditBalance: '15.00' });
  });

  test('reversing an earlier repayment replays the later ones and reallocates in the ledger', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const first = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '50.00' }));
    const second = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '100.00' }));
    // 56.62 finishes installment 1's principal, then installment 2: 11.05 interest, 32.33 principal.
    expect(second.transaction).toMatchObject({ interest_portion: 1105n, principal_portion: 8895n });
    await db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.admin, { loanId, transactionId: first.transaction.id }),
    );
    const loan = await view(loanId);
    // Only the 100.00 remains: 12.00 interest then 88.00 principal on installment 1.
    expect(loan.installments[0].paid).toEqual({
      principal: '88.00',
      interest: '12.00',
      fees: '0.00',
      penalties: '0.00',
    });
    expect(loan.outstanding.total).toBe('1179.42');
    const report = await checkLedger(db, [f.tenantId]);
    expect(report.differences).toEqual([]);
  });

  test('waivers forgive interest and charges; write-off closes the loan; only the write-off can be reversed first', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await db.tenant(f.tenantId, (tx) =>
      applyLoanCharge(tx, f.admin, { loanId, kind: 'fee', amount: '7.50', installmentNumber: 2 }),
    );
    expect(
      (await refused(db.tenant(f.tenantId, (tx) => waiveLoanInterest(tx, f.admin, { loanId, amount: '80.00' }))))
        .details,
    ).toEqual({ reason: 'waiver_exceeds_outstanding' });
    await db.tenant(f.tenantId, (tx) => waiveLoanInterest(tx, f.admin, { loanId, amount: '20.00' }));
    await db.tenant(f.tenantId, (tx) => waiveLoanCharges(tx, f.admin, { loanId }));
    let loan = await view(loanId);
    expect(loan.installments[0].waived.interest).toBe('12.00');
    expect(loan.installments[1].waived).toEqual({ interest: '8.00', fees: '7.50', penalties: '0.00' });
    expect(loan.outstanding).toMatchObject({ interest: '59.42', fees: '0.00', total: '1259.42' });
    const repay = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '10.00' }));
    const wo = await db.tenant(f.tenantId, (tx) => writeOffLoan(tx, f.admin, { loanId, note: 'customer deceased' }));
    expect(wo.transaction).toMatchObject({
      type: 'WRITE_OFF',
      amount: 124942n,
      principal_portion: 119000n,
      interest_portion: 5942n,
    });
    loan = await view(loanId);
    expect(loan).toMatchObject({ status: 'CLOSED_WRITTEN_OFF', writtenOffOn: '2026-01-15' });
    expect(loan.outstanding.total).toBe('0.00');
    expect(
      (
        await refused(
          db.tenant(f.tenantId, (tx) =>
            reverseLoanTransaction(tx, f.admin, { loanId, transactionId: repay.transaction.id }),
          ),
        )
      ).details,
    ).toEqual({ reason: 'write_off_first' });
    await db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.admin, { loanId, transactionId: wo.transaction.id }),
    );
    loan = await view(loanId);
    expect(loan).toMatchObject({ status: 'ACTIVE', writtenOffOn: null });
    expect(loan.outstanding.total).toBe('1249.42');
  });

  test('the chart of accounts is seeded', async () => {
    const rows = await db.owner((tx) => tx.query<{ code: string }>('select code from ledger_accounts order by code'));
    expect(rows.map((r) => r.code)).toEqual([
      'FEE_INCOME',
      'FEE_RECEIVABLE',
      'FUND_SOURCE',
      'INTEREST_INCOME',
      'INTEREST_RECEIVABLE',
      'LOAN_PORTFOLIO',
      'OVERPAYMENT_LIABILITY',
      'PENALTY_INCOME',
      'PENALTY_RECEIVABLE',
      'WRITE_OFF_EXPENSE',
    ]);
  });

  test('posted rows cannot be changed or deleted, even through the runtime role', async () => {
    const { loanId } = await f.disbursedLoan();
    for (const sql of [
      `update loan_transactions set amount = 1 where loan_id = $1`,
      `delete from loan_transactions where loan_id = $1`,
      `update journal_lines set debit = debit + 1 where loan_id = $1`,
      `delete from journal_entries where loan_id = $1`,
      `update audit_log set outcome = 'failed' where object_id = $1::text`,
    ]) {
      await expect(db.tenant(f.tenantId, (tx) => tx.query(sql, [loanId]))).rejects.toThrow(/immutable/);
    }
  });

  test('an unbalanced journal entry cannot be committed', async () => {
    const { loanId } = await f.disbursedLoan();
    await expect(
      db.tenant(f.tenantId, async (tx) => {
        const [e] = await tx.query<{ id: string }>(
          `insert into journal_entries (tenant_id, entry_date, currency, loan_id, description) values ($1, '2026-01-15', 'USD', $2, 'bad') returning id`,
          [f.tenantId, loanId],
        );
        await tx.query(
          `insert into journal_lines (tenant_id, entry_id, account_code, currency, loan_id, debit) values ($1, $2, 'FUND_SOURCE', 'USD', $3, 100)`,
          [f.tenantId, e.id, loanId],
        );
        await tx.query(
          `insert into journal_lines (tenant_id, entry_id, account_code, currency, loan_id, credit) values ($1, $2, 'LOAN_PORTFOLIO', 'USD', $3, 99)`,
          [f.tenantId, e.id, loanId],
        );
      }),
    ).rejects.toThrow(/does not balance/);
  });

  test('two disbursements racing on one approved loan: exactly one transfers funds', async () => {
    const { loanId } = await f.approvedLoan({ principal: '500.00', numberOfRepayments: 5 });
    const results = await Promise.allSettled(
      [0, 1, 2].map(() => db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as AppError).details).toEqual({ reason: 'wrong_state' });
    const loan = await view(loanId);
    expect(loan.transactions.filter((t) => t.type === 'DISBURSEMENT')).toHaveLength(1);
    expect(loan.installments).toHaveLength(5);
  });
});

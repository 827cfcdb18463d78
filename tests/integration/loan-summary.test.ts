import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { writeOffLoan } from '#lib/lending/commands/write-off-loan.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * The figures the database keeps on rows for the lists (migrations 0370-0372): a loan's outstanding,
 * oldest unpaid due date and maturity date follow its installments through the engine's commands;
 * loans, offers, applications and collaterals carry their customer's branch and officer; a customer
 * counts their active loans. The ledger check compares the loan figures with the installments, so
 * every test database is checked on drop; the last test proves that check catches a wrong figure.
 */
describe.each(testDbKinds())('figures kept on rows on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const row = (loanId: string) =>
    db.tenant(
      f.tenantId,
      async (tx) =>
        (
          await tx.query<{
            outstanding: string;
            oldest_unpaid_due_date: string | null;
            maturity_date: string | null;
            customer_branch_id: string | null;
          }>(
            `select outstanding::text, oldest_unpaid_due_date::text, maturity_date::text, customer_branch_id::text from loans where id = $1`,
            [loanId],
          )
        )[0]!,
    );
  const activeLoans = () =>
    db.tenant(
      f.tenantId,
      async (tx) =>
        (await tx.query<{ n: number }>(`select active_loans as n from customers where id = $1`, [f.customerId]))[0]!.n,
    );
  const minor = (amount: string) => BigInt(amount.replace('.', '')).toString();

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db);
  });
  afterAll(async () => drop());

  test('a disbursed loan carries its outstanding, oldest unpaid and maturity dates; repayments and reversals move them', async () => {
    expect(await activeLoans()).toBe(0);
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    expect(await activeLoans()).toBe(1);
    let loan = await db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
    expect(await row(loanId)).toMatchObject({
      outstanding: minor(loan.outstanding.total),
      oldest_unpaid_due_date: loan.installments[0].dueDate,
      maturity_date: loan.installments.at(-1)!.dueDate,
    });

    // Paying the first installment in full moves the oldest unpaid date to the second.
    const first = loan.installments[0];
    const { transaction } = await db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, { loanId, amount: first.total }),
    );
    loan = await db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
    expect(await row(loanId)).toMatchObject({
      outstanding: minor(loan.outstanding.total),
      oldest_unpaid_due_date: loan.installments[1].dueDate,
    });

    // Reversing the payment restores the first installment as the oldest unpaid.
    await db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: transaction.id }));
    loan = await db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
    expect(await row(loanId)).toMatchObject({
      outstanding: minor(loan.outstanding.total),
      oldest_unpaid_due_date: first.dueDate,
    });
  });

  test("a written-off loan owes nothing and no longer counts as the customer's active loan", async () => {
    const before = await activeLoans();
    const { loanId } = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    expect(await activeLoans()).toBe(before + 1);
    await setBusinessDate(db, f.tenantId, '2026-03-01');
    await db.tenant(f.tenantId, (tx) => writeOffLoan(tx, f.admin, { loanId }));
    expect(await row(loanId)).toMatchObject({ outstanding: '0', oldest_unpaid_due_date: null });
    expect(await activeLoans()).toBe(before);
  });

  test('rows follow their customer to another branch', async () => {
    const { loanId } = await f.approvedLoan();
    const branch = await db.tenant(f.tenantId, async (tx) => {
      const [node] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'MOVED', 'Moved to') returning id::text`,
        [f.tenantId],
      );
      await tx.query(`update customers set branch_id = $2 where id = $1`, [f.customerId, node!.id]);
      return node!.id;
    });
    expect((await row(loanId)).customer_branch_id).toBe(branch);
    const copies = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ n: number }>(
        `select (select count(*) from loans where customer_id = $1 and customer_branch_id is distinct from $2::uuid)::int
                                   + (select count(*) from loan_applications where customer_id = $1 and customer_branch_id is distinct from $2::uuid)::int as n`,
        [f.customerId, branch],
      ),
    );
    expect(copies[0]!.n).toBe(0);
  });

  test('the ledger check reports a loan whose stored figures disagree with its installments', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '300.00', numberOfRepayments: 3 });
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
    // Only the table owner can bypass the trigger's figures (tampering, or a bug in a future writer).
    await db.owner((tx) => tx.query(`update loans set outstanding = outstanding + 1 where id = $1`, [loanId]));
    const report = await checkLedger(db, [f.tenantId]);
    expect(report.differences).toEqual([
      expect.objectContaining({ kind: 'loan_summary_mismatch', loanId, field: 'outstanding' }),
    ]);
    await db.owner((tx) => tx.query(`update loans set outstanding = outstanding - 1 where id = $1`, [loanId]));
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });
});

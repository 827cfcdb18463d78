import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import {
  approveRescheduleRequest,
  currentInstallmentsOf,
  listRescheduleRequests,
  previewLoanReschedule,
  rejectRescheduleRequest,
  submitRescheduleRequest,
} from '#lib/lending/commands/reschedule-loan.ts';
import { loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { parseTerms } from '#lib/schedule/index.ts';
import { rescheduleSchedule } from '#lib/schedule/reschedule.ts';
import { simulateReschedule } from '#lib/simulator/features/reschedule.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Reschedule requests, maker-checker: the maker submits, cannot approve their own request, the
 * checker approves and the loan's installments become the engine's result with the ledger balanced;
 * a rejection leaves the loan exactly as it was.
 */
describe.each(testDbKinds())('loan reschedule requests on %s', (kind) => {
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

  const rows = (loanId: string) =>
    f.db.tenant(f.tenantId, async (tx) => {
      const s = await openLoanForCommand(tx, f.checker, loanId);
      return { installments: s.installments, transactions: s.transactions, loan: s.loan };
    });
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      return { status: (e as AppError).status, reason: (e as AppError).details?.reason };
    }
    throw new Error('expected a refusal');
  };

  test('maker submits, cannot approve; checker approves: installments are the engine’s, ledger balanced', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '150.00' }));
    const input = { rescheduleFromDate: '2026-04-15', newInterestRate: '6', extraTerms: 3, reason: 'Payment holiday' };

    const preview = await f.db.tenant(f.tenantId, (tx) => previewLoanReschedule(tx, f.maker, loanId, input));
    expect(preview.before.installments).toHaveLength(12);
    expect(preview.after.installments).toHaveLength(15);

    const request = await f.db.tenant(f.tenantId, (tx) => submitRescheduleRequest(tx, f.maker, loanId, input));
    expect(request).toMatchObject({
      status: 'submitted',
      submittedBy: f.maker.userId,
      extraTerms: 3,
      newInterestRate: '6',
    });

    // One request at a time per loan.
    expect(await refusal(f.db.tenant(f.tenantId, (tx) => submitRescheduleRequest(tx, f.maker, loanId, input)))).toEqual(
      { status: 409, reason: 'reschedule_pending' },
    );

    const before = await rows(loanId);
    // The submitter cannot approve their own request (403), and nothing changes.
    expect(
      await refusal(f.db.tenant(f.tenantId, (tx) => approveRescheduleRequest(tx, f.maker, loanId, request.id))),
    ).toEqual({ status: 403, reason: 'self_reschedule_approval' });
    expect((await rows(loanId)).installments).toEqual(before.installments);

    const expected = rescheduleSchedule(
      parseTerms(before.loan.terms),
      currentInstallmentsOf(before.installments, before.transactions),
      { ...input, submittedOn: f.businessDate },
    ).schedule.installments;
    const approved = await f.db.tenant(f.tenantId, (tx) =>
      approveRescheduleRequest(tx, f.checker, loanId, request.id, 'ok'),
    );
    expect(approved.request).toMatchObject({
      status: 'approved',
      decidedBy: f.checker.userId,
      decidedOn: f.businessDate,
    });
    const after = await rows(loanId);
    expect(
      after.installments.map((r) => [r.number, r.due_date, r.principal_due, r.interest_due, r.is_down_payment]),
    ).toEqual(expected.map((i) => [i.number, i.dueDate, i.principal, i.interest, i.isDownPayment]));
    expect(after.installments).toHaveLength(15);
    // The rows before the from date are untouched; the payment is replayed onto the new dues.
    expect(after.installments.slice(0, 2).map((r) => [r.due_date, r.principal_due, r.interest_due])).toEqual(
      before.installments.slice(0, 2).map((r) => [r.due_date, r.principal_due, r.interest_due]),
    );
    const paid = after.installments.reduce((s, r) => s + r.principal_paid + r.interest_paid, 0n);
    expect(paid).toBe(15000n);
    const oldInterest = before.installments.reduce((s, r) => s + r.interest_due, 0n);
    const newInterest = after.installments.reduce((s, r) => s + r.interest_due, 0n);
    expect(newInterest).toBeLessThan(oldInterest);
    const [stored] = await f.db.tenant(f.tenantId, (tx) => listRescheduleRequests(tx, f.checker, loanId));
    expect(stored.interestChange).toBe((Number(newInterest - oldInterest) / 100).toFixed(2));

    const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
    const o = loanOutstanding(after.installments);
    expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
    expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

    const audits = await f.db.tenant(f.tenantId, (tx) =>
      tx.query<{ action: string; outcome: string; actor_id: string }>(
        `select action, outcome, actor_id from audit_log where object_id = $1 and action like 'loan.reschedule.%' order by occurred_at, action desc`,
        [loanId],
      ),
    );
    expect(audits.map((a) => [a.action, a.outcome, a.actor_id])).toEqual([
      ['loan.reschedule.submit', 'success', f.maker.userId],
      ['loan.reschedule.approve', 'success', f.checker.userId],
    ]);
    // A decided request is final.
    expect(
      await refusal(f.db.tenant(f.tenantId, (tx) => approveRescheduleRequest(tx, f.checker, loanId, request.id))),
    ).toEqual({ status: 409, reason: 'wrong_state' });
  });

  test('a rejected request leaves the loan unchanged', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    const before = await rows(loanId);
    const request = await f.db.tenant(f.tenantId, (tx) =>
      submitRescheduleRequest(tx, f.maker, loanId, { rescheduleFromDate: '2026-03-15', adjustedDueDate: '2026-04-30' }),
    );
    const rejected = await f.db.tenant(f.tenantId, (tx) =>
      rejectRescheduleRequest(tx, f.checker, loanId, request.id, 'not now'),
    );
    expect(rejected).toMatchObject({ status: 'rejected', decisionNote: 'not now', interestChange: null });
    const after = await rows(loanId);
    expect(after.installments).toEqual(before.installments);
    expect(after.loan.version).toBe(before.loan.version);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
    // Once rejected, another request may be submitted.
    await f.db.tenant(f.tenantId, (tx) =>
      submitRescheduleRequest(tx, f.maker, loanId, { rescheduleFromDate: '2026-03-15', graceOnPrincipal: 1 }),
    );
  });

  test('refusals name their reason: not a due date, nothing to change, not an active loan', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    expect(
      await refusal(
        f.db.tenant(f.tenantId, (tx) =>
          submitRescheduleRequest(tx, f.maker, loanId, { rescheduleFromDate: '2026-03-16', extraTerms: 1 }),
        ),
      ),
    ).toEqual({ status: 400, reason: 'RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE' });
    expect(
      await refusal(
        f.db.tenant(f.tenantId, (tx) =>
          submitRescheduleRequest(tx, f.maker, loanId, { rescheduleFromDate: '2026-03-15' }),
        ),
      ),
    ).toEqual({ status: 400, reason: 'RESCHEDULE_NOTHING_TO_CHANGE' });
    const { loanId: approvedOnly } = await f.approvedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    expect(
      await refusal(
        f.db.tenant(f.tenantId, (tx) =>
          submitRescheduleRequest(tx, f.maker, approvedOnly, { rescheduleFromDate: '2026-03-15', extraTerms: 1 }),
        ),
      ),
    ).toEqual({ status: 409, reason: 'wrong_state' });
  });

  test('the simulator’s reschedule stretches an active loan by two installments through maker and checker', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    const done = await f.db.tenant(f.tenantId, (tx) =>
      simulateReschedule(tx, { maker: f.maker, checker: f.checker }, loanId),
    );
    expect(done).toMatchObject({ fromDate: '2026-02-15', extraTerms: 2 });
    expect((await rows(loanId)).installments).toHaveLength(8);
    const [request] = await f.db.tenant(f.tenantId, (tx) => listRescheduleRequests(tx, f.checker, loanId));
    expect(request).toMatchObject({ status: 'approved', submittedBy: f.maker.userId, decidedBy: f.checker.userId });
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { rejectApplication } from '#lib/lending/commands/reject-application.ts';
import { withdrawApplication } from '#lib/lending/commands/withdraw-application.ts';
import { findLoan } from '#lib/lending/loans.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

describe.each(testDbKinds())('loan applications on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { approvalAdminThreshold: 500_000n });
  });
  afterAll(async () => {
    await drop();
  });

  const submit = (principal = '1200.00') =>
    db.tenant(f.tenantId, (tx) =>
      submitApplication(tx, f.maker, {
        customerId: f.customerId,
        productId: f.productId,
        principal,
        numberOfRepayments: 12,
      }),
    );

  test('submitting creates the application and its loan pending approval', async () => {
    const { application, loanId } = await submit();
    expect(application).toMatchObject({
      status: 'submitted',
      principal: 120_000n,
      submitted_by: f.maker.userId,
      loan_id: loanId,
    });
    const loan = await db.tenant(f.tenantId, (tx) => findLoan(tx, loanId));
    expect(loan).toMatchObject({
      status: 'SUBMITTED_AND_PENDING_APPROVAL',
      principal: 120_000n,
      submitted_on: f.businessDate,
    });
  });

  test('amounts and terms outside the product are refused naming the field', async () => {
    expect((await refused(submit('5.00'))).field).toBe('principal');
    expect((await refused(submit('10.001'))).field).toBe('principal');
    const e = await refused(
      db.tenant(f.tenantId, (tx) =>
        submitApplication(tx, f.maker, {
          customerId: f.customerId,
          productId: f.productId,
          principal: '100.00',
          numberOfRepayments: 99,
        }),
      ),
    );
    expect(e.field).toBe('numberOfRepayments');
  });

  test('self-approval is refused, writes nothing, and another user can approve', async () => {
    const { application, loanId } = await submit();
    const error = await refused(db.tenant(f.tenantId, (tx) => approveApplication(tx, f.maker, application.id)));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.details).toEqual({ reason: 'self_approval' });
    // An admin who submitted is still the maker.
    const asAdminMaker = { ...f.admin, userId: f.maker.userId };
    expect(
      (await refused(db.tenant(f.tenantId, (tx) => approveApplication(tx, asAdminMaker, application.id)))).code,
    ).toBe('FORBIDDEN');

    const approved = await db.tenant(f.tenantId, (tx) => approveApplication(tx, f.checker, application.id, 'ok'));
    expect(approved).toMatchObject({ status: 'approved', decided_by: f.checker.userId, decision_note: 'ok' });
    const loan = await db.tenant(f.tenantId, (tx) => findLoan(tx, loanId));
    expect(loan).toMatchObject({ status: 'APPROVED', approved_on: f.businessDate, approved_by: f.checker.userId });
    // The approved command ran exactly once: a second approval is refused.
    expect((await refused(db.tenant(f.tenantId, (tx) => approveApplication(tx, f.admin, application.id)))).code).toBe(
      'CONFLICT',
    );
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan_application', application.id));
    expect(audit.map((a) => [a.action, a.outcome, a.actor_id])).toEqual([
      ['application.submit', 'success', f.maker.userId],
      ['application.approve', 'success', f.checker.userId],
    ]);
  });

  test('above the tenant threshold only an admin approves', async () => {
    const { application } = await submit('5000.01');
    expect(
      (await refused(db.tenant(f.tenantId, (tx) => approveApplication(tx, f.checker, application.id)))).details,
    ).toEqual({ reason: 'above_threshold' });
    expect(await db.tenant(f.tenantId, (tx) => approveApplication(tx, f.admin, application.id))).toMatchObject({
      status: 'approved',
    });
    const atLimit = await submit('5000.00');
    expect(
      await db.tenant(f.tenantId, (tx) => approveApplication(tx, f.checker, atLimit.application.id)),
    ).toMatchObject({ status: 'approved' });
  });

  test('reject and withdraw end the application and its loan; nothing follows them', async () => {
    const a = await submit();
    await db.tenant(f.tenantId, (tx) => rejectApplication(tx, f.checker, a.application.id, 'income too low'));
    expect(await db.tenant(f.tenantId, (tx) => findLoan(tx, a.loanId))).toMatchObject({ status: 'REJECTED' });
    const b = await submit();
    await db.tenant(f.tenantId, (tx) => withdrawApplication(tx, f.maker, b.application.id));
    expect(await db.tenant(f.tenantId, (tx) => findLoan(tx, b.loanId))).toMatchObject({
      status: 'WITHDRAWN_BY_CLIENT',
    });
    for (const id of [a.application.id, b.application.id]) {
      expect((await refused(db.tenant(f.tenantId, (tx) => approveApplication(tx, f.admin, id)))).details).toEqual({
        reason: 'wrong_state',
      });
      expect((await refused(db.tenant(f.tenantId, (tx) => withdrawApplication(tx, f.maker, id)))).code).toBe(
        'CONFLICT',
      );
    }
  });

  test('two checkers racing on one application decide it once', async () => {
    const { application } = await submit();
    const results = await Promise.allSettled([
      db.tenant(f.tenantId, (tx) => approveApplication(tx, f.checker, application.id)),
      db.tenant(f.tenantId, (tx) => rejectApplication(tx, f.admin, application.id)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  test('another tenant cannot see or decide the application', async () => {
    const other = await createLendingFixture(db);
    const { application } = await submit();
    const error = await refused(
      db.tenant(other.tenantId, (tx) => approveApplication(tx, other.checker, application.id)),
    );
    expect(error.code).toBe('NOT_FOUND');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { createProductCommand, updateProductCommand } from '#lib/lending/product-admin.ts';
import { getProduct } from '#lib/lending/products.ts';
import { createOffer } from '#lib/lending/offers.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { closeUntil } from '#lib/close/daily-close.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const ADMIN_SUBJECT = { isAdmin: true, authorities: [] as string[] };
const OFFICER_SUBJECT = { isAdmin: false, authorities: ['loans.products.view'] };

const base = {
  code: 'CASH24',
  name: 'Cash loan',
  currency: 'USD',
  digitsAfterDecimal: 2,
  minPrincipal: '100.00',
  maxPrincipal: '5000.00',
  minRepayments: 3,
  maxRepayments: 24,
  annualInterestRate: '18',
  repaymentFrequency: 'MONTHS',
};

async function refusal(promise: Promise<unknown>): Promise<{ status: number; field?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field, message: error.message };
    if ((error as { name?: string }).name === 'ZodError') {
      const issue = (error as { issues: { path: PropertyKey[]; message: string }[] }).issues[0];
      return { status: 400, field: String(issue.path[0]), message: issue.message };
    }
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(testDbKinds())('loan products administration on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let other: LendingFixture;
  const run = <I, O>(actor: Actor, command: Command<I, O>, input: unknown, subject = ADMIN_SUBJECT) =>
    runCommand(
      { db, actor, permissionSubject: subject, objectId: (input as { productId?: string }).productId ?? null },
      command,
      () => input,
    );

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db);
    other = await createLendingFixture(db);
  });
  afterAll(async () => drop());

  it('refuses hostile product input with 400/404/409/422 naming the field, and non-admins with 403', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ minPrincipal: '6000.00' }, 400, 'maxPrincipal'],
      [{ annualInterestRate: '-1' }, 400, 'annualInterestRate'],
      [{ annualInterestRate: '100000' }, 400, 'annualInterestRate'],
      [{ repaymentFrequency: 'YEARS' }, 400, 'repaymentFrequency'],
      [{ allocationStrategy: 'robin-hood' }, 400, 'allocationStrategy'],
      [{ digitsAfterDecimal: 3 }, 400, 'digitsAfterDecimal'],
      [{ maxRepayments: 2 }, 400, 'maxRepayments'],
      [{ defaultPrincipal: '99.00' }, 400, 'defaultPrincipal'],
      [{ defaultRepayments: 30 }, 400, 'defaultRepayments'],
      [{ graceOnPrincipalPeriods: 3 }, 400, 'graceOnPrincipalPeriods'],
      [{ downPaymentPercent: '100' }, 400, 'downPaymentPercent'],
      [{ fees: [{ code: 'X' }] }, 400, 'fees'],
      [{ penalties: [{ code: 'LATE', name: 'Late', kind: 'FLAT' }] }, 400, 'penalties.0.amount'],
      [{ name: 'x'.repeat(201) }, 400, 'name'],
      [{ code: '<script>' }, 400, 'code'],
      [{ delinquencyBucketSetId: '00000000-0000-4000-8000-000000000000' }, 422, 'delinquencyBucketSetId'],
      [{ minPrincipal: { amount: 5 } }, 400, 'minPrincipal'],
    ];
    for (const [change, status, field] of cases) {
      const answer = await refusal(run(f.admin, createProductCommand, { ...base, ...change }));
      expect([answer.status, answer.field], JSON.stringify(change)).toEqual([status, field]);
    }
    expect((await refusal(run(f.maker, createProductCommand, base, OFFICER_SUBJECT))).status).toBe(403);
    const created = await run(f.admin, createProductCommand, base);
    expect(created.version).toBe(1);
    expect((await refusal(run(f.admin, createProductCommand, { ...base, code: 'cash24' }))).status).toBe(409);
    // Another tenant's product id is not found; so is a malformed one.
    expect(
      (await refusal(run(other.admin, updateProductCommand, { productId: created.id, name: 'Mine' }))).status,
    ).toBe(404);
    expect((await refusal(run(f.admin, updateProductCommand, { productId: 'nope', name: 'Mine' }))).status).toBe(404);
  });

  it('keeps every version; PATCH with a stale expectedVersion is 409; each change is audited with before and after', async () => {
    const created = await run(f.admin, createProductCommand, { ...base, code: 'VERS' });
    const v2 = await run(f.admin, updateProductCommand, {
      productId: created.id,
      expectedVersion: 1,
      annualInterestRate: '20',
    });
    expect(v2.version).toBe(2);
    const stale = await refusal(
      run(f.admin, updateProductCommand, { productId: created.id, expectedVersion: 1, annualInterestRate: '21' }),
    );
    expect([stale.status, stale.field]).toEqual([409, 'expectedVersion']);
    // A change that changes nothing makes no version.
    const same = await run(f.admin, updateProductCommand, { productId: created.id, annualInterestRate: '20' });
    expect(same.version).toBe(2);
    const versions = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ version: number; rate: string }>(
        `select version, snapshot->>'annual_interest_rate' as rate from loan_product_versions where product_id = $1 order by version`,
        [created.id],
      ),
    );
    expect(versions.map((v) => [v.version, Number(v.rate)])).toEqual([
      [1, 18],
      [2, 20],
    ]);
    // History cannot be rewritten.
    await expect(
      db.tenant(f.tenantId, (tx) =>
        tx.query(`update loan_product_versions set created_by = 'x' where product_id = $1`, [created.id]),
      ),
    ).rejects.toThrow(/immutable/);
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan_product', created.id));
    const update = audit.find((a) => a.action === 'product.update' && a.outcome === 'success');
    expect((update?.before as { annualInterestRate: string }).annualInterestRate).toMatch(/^18/);
    expect((update?.after as { version: number }).version).toBe(2);
    expect(audit.some((a) => a.action === 'product.create')).toBe(true);
    expect(audit.some((a) => a.outcome !== 'success')).toBe(true); // the stale write's refusal
  });

  it('a product change never alters a loan made before it: schedule, allocation, overpayment and the close follow the loan’s version', async () => {
    const g = await createLendingFixture(db, { businessDate: '2026-01-15' });
    const product = await db.tenant(g.tenantId, (tx) => getProduct(tx, g.productId));
    expect(product.version).toBe(1);
    const disbursed = await g.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const approved = await g.approvedLoan({ principal: '1200.00', numberOfRepayments: 12 });

    await run(g.admin, updateProductCommand, {
      productId: g.productId,
      expectedVersion: 1,
      annualInterestRate: '24',
      allocationStrategy: 'principal-interest-penalties-fees-order-strategy',
      graceOnPrincipalPeriods: 0,
      interestFreePeriods: 0,
      allowOverpayment: true,
      minRepayments: 3,
      penalties: [{ code: 'LATE', name: 'Late fee', kind: 'FLAT', trigger: 'OVERDUE', amount: '2500' }],
    });
    await run(g.admin, updateProductCommand, { productId: g.productId, graceOnPrincipalPeriods: 2 });

    // Disbursed after the change, an application made before it keeps version 1: no grace, 12 %.
    await db.tenant(g.tenantId, (tx) => disburseLoan(tx, g.checker, { loanId: approved.loanId }));
    const schedule = (loanId: string) =>
      db.tenant(g.tenantId, (tx) =>
        tx.query<{ number: number; principal_due: bigint; interest_due: bigint }>(
          `select number, principal_due, interest_due from loan_installments where loan_id = $1 order by number`,
          [loanId],
        ),
      );
    const before = await schedule(disbursed.loanId);
    expect(await schedule(approved.loanId)).toEqual(before);
    expect(before[0].principal_due).toBeGreaterThan(0n);
    expect(before[0].interest_due).toBe(1200n); // 1 % of 1,200.00

    // A new loan uses version 3: two periods of grace on principal, 24 %.
    const fresh = await g.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const freshSchedule = await schedule(fresh.loanId);
    expect(freshSchedule[0].principal_due).toBe(0n);
    expect(freshSchedule[0].interest_due).toBe(2400n);
    const versions = await db.tenant(g.tenantId, (tx) =>
      tx.query<{ id: string; product_version: number }>(
        `select id, product_version from loans where id = any($1::uuid[])`,
        [[disbursed.loanId, approved.loanId, fresh.loanId]],
      ),
    );
    expect(Object.fromEntries(versions.map((v) => [v.id, v.product_version]))).toEqual({
      [disbursed.loanId]: 1,
      [approved.loanId]: 1,
      [fresh.loanId]: 3,
    });

    // Allocation: version 1's standard strategy pays interest before principal.
    await db.tenant(g.tenantId, (tx) => repayLoan(tx, g.maker, { loanId: disbursed.loanId, amount: '10.00' }));
    const [repayment] = await db.tenant(g.tenantId, (tx) =>
      tx.query<{ principal_portion: bigint; interest_portion: bigint }>(
        `select principal_portion, interest_portion from loan_transactions where loan_id = $1 and type = 'REPAYMENT'`,
        [disbursed.loanId],
      ),
    );
    expect([repayment.principal_portion, repayment.interest_portion]).toEqual([0n, 1000n]);
    // Overpayment: version 1 takes none (422), whatever the product says now.
    const over = await refusal(
      db.tenant(g.tenantId, (tx) => repayLoan(tx, g.maker, { loanId: disbursed.loanId, amount: '99999.00' })),
    );
    expect(over.status).toBe(422);

    // The close charges version 3's overdue penalty only on the loan made with it.
    await closeUntil(db, g.tenantId, '2026-03-20');
    const penalties = await db.tenant(g.tenantId, (tx) =>
      tx.query<{ loan_id: string }>(`select distinct loan_id from loan_transactions where type = 'PENALTY_APPLIED'`),
    );
    expect(penalties.map((p) => p.loan_id)).toEqual([fresh.loanId]);
  });

  it('an inactive product takes no new offer or application (409); its loans carry on', async () => {
    const h = await createLendingFixture(db);
    const loan = await h.disbursedLoan();
    const off = await run(h.admin, updateProductCommand, { productId: h.productId, active: false });
    expect([off.is_active, off.version]).toEqual([false, 2]);
    const audit = await db.tenant(h.tenantId, (tx) => listAudit(tx, 'loan_product', h.productId));
    expect(audit.some((a) => a.action === 'product.deactivate')).toBe(true);
    const offer = await refusal(
      db.tenant(h.tenantId, (tx) =>
        createOffer(tx, h.maker, {
          customerId: h.customerId,
          productId: h.productId,
          principal: '1000.00',
          numberOfRepayments: 12,
          expiresOn: '2026-02-15',
        }),
      ),
    );
    expect([offer.status, offer.field]).toEqual([409, 'productId']);
    const application = await refusal(
      db.tenant(h.tenantId, (tx) =>
        submitApplication(tx, h.maker, {
          customerId: h.customerId,
          productId: h.productId,
          principal: '1000.00',
          numberOfRepayments: 12,
        }),
      ),
    );
    expect([application.status, application.field]).toEqual([409, 'productId']);
    await db.tenant(h.tenantId, (tx) => repayLoan(tx, h.maker, { loanId: loan.loanId, amount: '50.00' }));
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { varyInstallments } from '#lib/lending/commands/vary-installments.ts';
import { loadInstallments } from '#lib/lending/installments.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { createProduct, getProduct, termsFor } from '#lib/lending/products.ts';
import { runCommand } from '#lib/http/command.ts';
import { createProductCommand, updateProductCommand } from '#lib/lending/product-admin.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Variable installments end to end: a loan of a variable-installment product is edited before
 * disbursement (preview first, then stored in its terms), disbursed, and its installments are the ones
 * Fineract's VariableInstallmentsIntegrationTest.testAllVariationsDecliningBalancewithEqualInstallments
 * asserts (100,000 at 2 % a month, 4 monthly repayments from 20 Sep 2011: modify 20 Nov to 30,000,
 * insert 25 Dec with 5,000, delete 20 Dec → 26,262.38 / 30,000 / 5,000 / 44,077.00). The ledger check
 * passes after the disbursement.
 */
const EDITS = [
  { type: 'AMOUNT' as const, dueDate: '2011-11-20', amount: '30000' },
  { type: 'INSERT' as const, dueDate: '2011-12-25', amount: '5000' },
  { type: 'DELETE' as const, dueDate: '2011-12-20' },
];

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe.each(testDbKinds())('variable installments on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      businessDate: '2011-09-20',
      product: {
        code: 'VAR24',
        name: 'Variable installments 24%',
        annualInterestRate: '24',
        allowPartialPeriodInterest: true,
        allowVariableInstallments: true,
        variableInstallmentMinGapDays: 5,
        variableInstallmentMaxGapDays: 90,
        allowFixedEmi: true,
      },
    });
  });
  afterAll(async () => {
    await drop();
  });

  test('edited before disbursement (preview, then stored), disbursed with Fineract’s installments; ledger check passes', async () => {
    const { loanId } = await f.approvedLoan({
      principal: '100000.00',
      numberOfRepayments: 4,
      annualInterestRate: '24',
    });
    const preview = await f.db.tenant(f.tenantId, (tx) =>
      varyInstallments(tx, f.checker, { loanId, variations: EDITS, preview: true }),
    );
    expect(preview.schedule.installments.map((i) => [i.dueDate, i.total])).toEqual([
      ['2011-10-20', '26262.38'],
      ['2011-11-20', '30000.00'],
      ['2011-12-25', '5000.00'],
      ['2012-01-20', '44077.00'],
    ]);
    // A preview stores nothing.
    const [untouched] = await f.db.tenant(f.tenantId, (tx) =>
      tx.query<{ terms: Record<string, unknown> }>('select terms from loans where id = $1', [loanId]),
    );
    expect(untouched.terms.variations).toBeUndefined();

    // The product's gaps: an installment 2 days after another is refused (minimum 5).
    const gap = await refusal(
      f.db.tenant(f.tenantId, (tx) =>
        varyInstallments(tx, f.checker, { loanId, variations: [{ type: 'INSERT', dueDate: '2011-10-22' }] }),
      ),
    );
    expect(gap.field).toBe('variations');

    const saved = await f.db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.checker, { loanId, variations: EDITS }));
    expect(saved.variations).toEqual([
      { type: 'AMOUNT', dueDate: '2011-11-20', amount: '30000.00' },
      { type: 'INSERT', dueDate: '2011-12-25', amount: '5000.00' },
      { type: 'DELETE', dueDate: '2011-12-20' },
    ]);
    const audits = await f.db.tenant(f.tenantId, (tx) =>
      tx.query<{ outcome: string; after: unknown }>(
        `select outcome, after from audit_log where action = 'loan.vary_installments' and object_id = $1`,
        [loanId],
      ),
    );
    expect(audits.map((a) => a.outcome)).toContain('success');

    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    const rows = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
    expect(rows.map((r) => [r.due_date, r.principal_due + r.interest_due])).toEqual([
      ['2011-10-20', 2626238n],
      ['2011-11-20', 3000000n],
      ['2011-12-25', 500000n],
      ['2012-01-20', 4407700n],
    ]);
    expect(rows.reduce((s, r) => s + r.principal_due, 0n)).toBe(10000000n);
    const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
    expect(ledger.get('LOAN_PORTFOLIO')).toBe(10000000n);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

    // Once disbursed, the installments can no longer be edited this way.
    const late = await refusal(
      f.db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.checker, { loanId, variations: [] })),
    );
    expect(late.code).toBe('CONFLICT');
  });

  test('an own installment amount is kept and used at disbursement; cleared with an empty request', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1000.00', numberOfRepayments: 4, annualInterestRate: '24' });
    const withEmi = await f.db.tenant(f.tenantId, (tx) =>
      varyInstallments(tx, f.checker, { loanId, fixedEmiAmount: '400.00' }),
    );
    // 2 % a month: 1000 → 620 → 232.40 → the third installment takes the rest.
    expect(withEmi.schedule.installments.map((i) => i.total)).toEqual(['400.00', '400.00', '237.05']);
    await f.db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.checker, { loanId }));
    const [loan] = await f.db.tenant(f.tenantId, (tx) =>
      tx.query<{ terms: Record<string, unknown> }>('select terms from loans where id = $1', [loanId]),
    );
    expect(loan.terms.fixedEmiAmount).toBeUndefined();
    await f.db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.checker, { loanId, fixedEmiAmount: '400.00' }));
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    const rows = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
    expect(rows.map((r) => r.principal_due + r.interest_due)).toEqual([40000n, 40000n, 23705n]);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  test('a product without variable installments refuses the edits', async () => {
    const other = await f.db.tenant(f.tenantId, (tx) =>
      createProduct(tx, f.tenantId, {
        code: 'PLAIN',
        name: 'Plain',
        currency: 'USD',
        digitsAfterDecimal: 2,
        minPrincipal: 1_000n,
        maxPrincipal: 100_000_000n,
        minRepayments: 1,
        maxRepayments: 36,
        annualInterestRate: '24',
        repaymentFrequency: 'MONTHS',
      }),
    );
    const { loanId } = await f.approvedLoan({ productId: other.id, principal: '1000.00', numberOfRepayments: 4 });
    const e = await refusal(
      f.db.tenant(f.tenantId, (tx) =>
        varyInstallments(tx, f.checker, { loanId, variations: [{ type: 'DELETE', dueDate: '2011-10-20' }] }),
      ),
    );
    expect(e.field).toBe('variations');
    const emi = await refusal(
      f.db.tenant(f.tenantId, (tx) => varyInstallments(tx, f.checker, { loanId, fixedEmiAmount: '300' })),
    );
    expect(emi.field).toBe('fixedEmiAmount');
  });
  test('product rules: fixed length on a progressive 0 % product, gaps in order; termsFor carries the fixed length', async () => {
    const run = (command: typeof createProductCommand | typeof updateProductCommand, input: unknown) =>
      runCommand(
        { db, actor: f.admin, permissionSubject: { isAdmin: true, authorities: [] } },
        command as never,
        () => input,
      );
    const product = {
      code: 'FIX90',
      name: 'Fixed 90 days',
      currency: 'USD',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '5000.00',
      minRepayments: 3,
      maxRepayments: 3,
      annualInterestRate: '0',
      repaymentEvery: 1,
      repaymentFrequency: 'MONTHS',
      scheduleType: 'PROGRESSIVE',
      installmentAmountInMultiplesOf: 1,
      allocationStrategy: 'advanced-payment-allocation-strategy',
    };
    // Cumulative: Fineract's cumulative generator ignores a fixed length, so it is refused.
    const cumulative = await refusal(
      run(createProductCommand, { ...product, scheduleType: 'CUMULATIVE', fixedLength: 3 }),
    );
    expect(cumulative.field).toBe('fixedLength');
    // (3 − 1) × 1 + 1 = 3 months at least.
    const short = await refusal(run(createProductCommand, { ...product, fixedLength: 2 }));
    expect(short.field).toBe('fixedLength');
    const created = (await run(createProductCommand, { ...product, fixedLength: 3 })) as { id: string };
    const stored = await f.db.tenant(f.tenantId, (tx) => getProduct(tx, created.id));
    expect(stored.fixed_length).toBe(3);
    expect(
      termsFor(stored, {
        principal: 10000n,
        numberOfRepayments: 3,
        annualInterestRate: '0',
        disbursementDate: '2011-09-20',
      }).fixedLength,
    ).toBe(3);
    const gaps = await refusal(
      run(updateProductCommand, {
        productId: f.productId,
        variableInstallmentMinGapDays: 30,
        variableInstallmentMaxGapDays: 10,
      }),
    );
    expect(gaps.field).toBe('variableInstallmentMaxGapDays');
  });
});

import crypto from 'node:crypto';
import type { Db } from '#lib/db/index.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { createProduct, saveLendingSettings, type ProductInput } from '#lib/lending/products.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';

/**
 * A tenant ready for lending tests: a product, a customer, a maker (loan officer), a checker and an
 * admin, and helpers that take a loan through submit → approve → disburse with the real commands.
 * Reused by the daily close and the loans workspace tests.
 */
export type LendingFixture = {
  db: Db;
  tenantId: string;
  currency: string;
  businessDate: string;
  maker: Actor;
  checker: Actor;
  admin: Actor;
  productId: string;
  customerId: string;
  /** Submits and approves (maker submits, checker approves); returns the loan and application ids. */
  approvedLoan(options?: LoanOptions): Promise<{ loanId: string; applicationId: string }>;
  /** …and disburses it on the business date (or options.disbursementDate). */
  disbursedLoan(
    options?: LoanOptions & { disbursementDate?: string },
  ): Promise<{ loanId: string; applicationId: string }>;
};

export type LoanOptions = {
  principal?: string;
  numberOfRepayments?: number;
  annualInterestRate?: string;
  customerId?: string;
  productId?: string;
};

export type FixtureOptions = {
  tenantId?: string;
  currency?: string;
  businessDate?: string;
  /** Overrides of the default product: monthly, 12 % declining balance EMI, 1,000–100,000, 1–36 months. */
  product?: Partial<ProductInput>;
  /** Maker-checker threshold in minor units (null: none). */
  approvalAdminThreshold?: bigint | null;
};

export async function createLendingFixture(db: Db, options: FixtureOptions = {}): Promise<LendingFixture> {
  const tenantId = options.tenantId ?? `lend-${crypto.randomBytes(4).toString('hex')}`;
  const currency = options.currency ?? 'USD';
  const businessDate = options.businessDate ?? '2026-01-15';
  await db.owner((tx) =>
    tx.query(`insert into tenants (id, slug, name, currency, business_date) values ($1, $1, $2, $3, $4)`, [
      tenantId,
      `Lender ${tenantId}`,
      currency,
      businessDate,
    ]),
  );
  const actor = (name: string, isAdmin = false): Actor => ({
    tenantId,
    userId: `${name}-${tenantId}`,
    isAdmin,
    ip: '127.0.0.1',
  });
  const maker = actor('maker');
  const checker = actor('checker');
  const admin = actor('admin', true);
  const { productId, customerId } = await db.tenant(tenantId, async (tx) => {
    await saveLendingSettings(tx, tenantId, { approvalAdminThreshold: options.approvalAdminThreshold ?? null });
    const product = await createProduct(tx, tenantId, {
      code: 'EMI12',
      name: 'Monthly EMI 12%',
      currency,
      digitsAfterDecimal: currency === 'XOF' || currency === 'JPY' ? 0 : 2,
      minPrincipal: 1_000n,
      maxPrincipal: 100_000_000n,
      minRepayments: 1,
      maxRepayments: 36,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      ...options.product,
    });
    const customer = await createCustomer(tx, maker, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      nationalId: `NID-${tenantId}`,
      phone: '+33100000000',
    });
    return { productId: product.id, customerId: customer.id };
  });

  const approvedLoan = async (o: LoanOptions = {}) => {
    const { application, loanId } = await db.tenant(tenantId, (tx) =>
      submitApplication(tx, maker, {
        customerId: o.customerId ?? customerId,
        productId: o.productId ?? productId,
        principal: o.principal ?? '1200.00',
        numberOfRepayments: o.numberOfRepayments ?? 12,
        annualInterestRate: o.annualInterestRate,
      }),
    );
    await db.tenant(tenantId, (tx) => approveApplication(tx, checker, application.id));
    return { loanId, applicationId: application.id };
  };
  const disbursedLoan = async (o: LoanOptions & { disbursementDate?: string } = {}) => {
    const ids = await approvedLoan(o);
    await db.tenant(tenantId, (tx) => disburseLoan(tx, checker, { loanId: ids.loanId, date: o.disbursementDate }));
    return ids;
  };
  return {
    db,
    tenantId,
    currency,
    businessDate,
    maker,
    checker,
    admin,
    productId,
    customerId,
    approvedLoan,
    disbursedLoan,
  };
}

/** Moves a tenant's business date (tests only; the daily close does this in production). */
export async function setBusinessDate(db: Db, tenantId: string, date: string): Promise<void> {
  await db.owner((tx) => tx.query(`update tenants set business_date = $2 where id = $1`, [tenantId, date]));
}

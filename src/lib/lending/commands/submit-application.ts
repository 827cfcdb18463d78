import crypto from 'node:crypto';
import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import type { CustomersRow, LoanApplicationsRow, LoansRow } from '#lib/db/schema.generated.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import { validationError } from '#lib/errors/messages.ts';
import type { Actor } from '../actor.ts';
import { assertUuid } from '../loans.ts';
import { assertProductActive, assertWithinProduct, getProduct, getProductVersion, termsFor } from '../products.ts';
import { auditSuccess, positiveAmount } from './common.ts';
import { assertInScope, assertPlacementInScope } from '#lib/auth/data-permissions.ts';
import { currencyCode } from '#lib/money/money.ts';
import { decideSubmittedApplication, DECISION_ENGINE_USER } from '#lib/decisioning/bindings.ts';
import type { DecisionRow } from '#lib/decisioning/decisions.ts';
import { decideApplication } from './decide-application.ts';
import { prepareCustomValues } from '#lib/forms/custom-fields.ts';

export type SubmitApplicationInput = {
  customerId: string;
  productId: string;
  /** The product version of the offer the application comes from (internal; the API does not take it). */
  productVersion?: number;
  offerId?: string | null;
  /** Decimal string ("5000.00") or minor units. */
  principal: string | bigint;
  numberOfRepayments: number;
  /** Nominal yearly percent; defaults to the product's. */
  annualInterestRate?: string;
  /** Defaults to the business date. */
  expectedDisbursementDate?: string;
  formData?: Record<string, unknown>;
  /**
   * Customized field values (issue 13), checked against the tenant's form (required ones included):
   * typed values, `isApi` refusing names the form does not have. Absent: none are stored (flows
   * that do not ask them: offers' requests, public submissions, the simulator).
   */
  customFields?: { values: unknown; isApi?: boolean };
};

/** A `loan_applications` row; the status check constraint and the submitted form narrow two columns. */
export type ApplicationRow = Omit<LoanApplicationsRow, 'status' | 'form_data'> & {
  status: 'submitted' | 'approved' | 'rejected' | 'withdrawn';
  form_data: Record<string, unknown>;
};

const RATE = /^\d{1,3}(\.\d{1,6})?$/;

/**
 * Submits a loan application (the maker's step). It creates the application ('submitted') and its
 * loan in SUBMITTED_AND_PENDING_APPROVAL with the terms the schedule will use. When the decision
 * engine has an enabled `application_submitted` binding, the model decides in the same transaction
 * and its decision is stored (src/lib/decisioning/bindings.ts); a reject under an `auto_reject`
 * binding is rejected by the system; a model failure leaves the application for manual review.
 */
export async function submitApplication(
  tx: Tx,
  actor: Actor,
  input: SubmitApplicationInput,
): Promise<{ application: ApplicationRow; loanId: string; decision: DecisionRow | null }> {
  assertUuid(input.customerId, 'customerId');
  await assertPlacementInScope(tx, actor, { customerId: input.customerId });
  if (input.offerId) await assertInScope(tx, actor, 'offer', input.offerId);
  assertProductActive(await getProduct(tx, input.productId));
  // An application from an offer keeps the product version of the offer; otherwise the current one.
  const product =
    input.productVersion === undefined
      ? await getProduct(tx, input.productId)
      : await getProductVersion(tx, input.productId, input.productVersion);
  const { minor: principal } = positiveAmount(input.principal, product.currency, 'principal');
  assertWithinProduct(product, principal, input.numberOfRepayments);
  const rate = input.annualInterestRate ?? product.annual_interest_rate;
  if (!RATE.test(rate))
    throw new AppError('BAD_REQUEST', 'annualInterestRate must be a percentage such as "12.5"', {
      field: 'annualInterestRate',
    });
  const today = await businessDate(tx, actor.tenantId);
  const expected = expectedDisbursementDate(input.expectedDisbursementDate ?? today, today);
  const customer = await tx.query<Pick<CustomersRow, 'id' | 'officer_id'>>(
    `select id, officer_id from customers where id = $1`,
    [input.customerId],
  );
  if (!customer[0]) throw new AppError('NOT_FOUND', 'Customer not found', { field: 'customerId' });

  const customFields =
    input.customFields === undefined
      ? {}
      : await prepareCustomValues(tx, 'loan_application', input.customFields.values, null, {
          isApi: input.customFields.isApi,
        });
  const [application] = await tx.query<ApplicationRow>(
    `insert into loan_applications (tenant_id, customer_id, product_id, offer_id, currency, principal, number_of_repayments,
       annual_interest_rate, expected_disbursement_date, submitted_by, form_data, product_version, custom_fields)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::jsonb) returning *`,
    [
      actor.tenantId,
      input.customerId,
      product.id,
      input.offerId ?? null,
      product.currency,
      principal,
      input.numberOfRepayments,
      rate,
      expected,
      actor.userId,
      JSON.stringify(input.formData ?? {}),
      product.version,
      JSON.stringify(customFields),
    ],
  );
  const terms = termsFor(product, {
    principal,
    numberOfRepayments: input.numberOfRepayments,
    annualInterestRate: rate,
    disbursementDate: expected,
  });
  const accountNo = `L${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
  const [loan] = await tx.query<Pick<LoansRow, 'id'>>(
    `insert into loans (tenant_id, account_no, customer_id, product_id, application_id, offer_id, status, currency, principal,
       number_of_repayments, annual_interest_rate, terms, expected_disbursement_date, submitted_on, officer_id, product_version)
     values ($1, $2, $3, $4, $5, $6, 'SUBMITTED_AND_PENDING_APPROVAL', $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15) returning id`,
    [
      actor.tenantId,
      accountNo,
      input.customerId,
      product.id,
      application.id,
      input.offerId ?? null,
      product.currency,
      principal,
      input.numberOfRepayments,
      rate,
      JSON.stringify(terms),
      expected,
      today,
      customer[0].officer_id,
      product.version,
    ],
  );
  await tx.query(`update loan_applications set loan_id = $2 where id = $1`, [application.id, loan.id]);
  await auditSuccess(tx, actor, 'application.submit', 'loan_application', application.id, null, {
    status: 'submitted',
    principal,
    loanId: loan.id,
  });
  const { decision, autoReject } = await decideSubmittedApplication(tx, actor, application.id);
  if (autoReject) {
    const system: Actor = { tenantId: actor.tenantId, userId: DECISION_ENGINE_USER, isAdmin: true, kind: 'system' };
    const rejected = await decideApplication(tx, system, application.id, 'reject', 'Rejected by the decision engine');
    return { application: rejected, loanId: loan.id, decision };
  }
  const [current] = await tx.query<ApplicationRow>(`select * from loan_applications where id = $1`, [application.id]);
  return { application: { ...current, currency: currencyCode(current.currency) }, loanId: loan.id, decision };
}

/** A real calendar date, not before the business date (a loan is not planned in the past). */
export function expectedDisbursementDate(value: unknown, today: string): string {
  const result = parseDateInput(value, { min: today, minIsBusinessDate: true });
  if (!result.ok) throw validationError('expectedDisbursementDate', result.problem.key, result.problem.params);
  return result.date;
}

/** Reads and row-locks the application, loaded through the actor's data permissions (another branch's is not found). */
export async function lockApplication(tx: Tx, actor: Actor, applicationId: string): Promise<ApplicationRow> {
  assertUuid(applicationId, 'applicationId');
  await assertInScope(tx, actor, 'application', applicationId);
  const rows = await tx.query<ApplicationRow>(`select * from loan_applications where id = $1 for update`, [
    applicationId,
  ]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'applicationId' });
  return { ...rows[0], currency: currencyCode(rows[0].currency) };
}

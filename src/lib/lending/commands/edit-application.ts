import type { Tx } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Actor } from '../actor.ts';
import { dryRunApplication } from '../lifecycle/application.ts';
import { assertUuid, lockLoan } from '../loans.ts';
import { assertWithinProduct, productOf, termsFor } from '../products.ts';
import { auditSuccess, positiveAmount } from './common.ts';
import { applicationContext } from './decide-application.ts';
import { expectedDisbursementDate, lockApplication, type ApplicationRow } from './submit-application.ts';
import { assertInScope } from '#lib/auth/data-permissions.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import type { LoanApplicationsRow } from '#lib/db/schema.generated.ts';
import { currencyCode } from '#lib/money/money.ts';
import { prepareCustomValues } from '#lib/forms/custom-fields.ts';

export type EditApplicationInput = {
  /** Decimal string ("5000.00") or minor units. */
  principal: string | bigint;
  numberOfRepayments: number;
  /** The application's form fields (replaces the stored ones). */
  formData?: Record<string, unknown>;
  /** The version the user edited; a different stored version means someone changed it meanwhile (409). */
  expectedVersion?: number;
  /** A real calendar date, not before the business date; unchanged when absent. */
  expectedDisbursementDate?: string;
  /** Customized field values (issue 13), checked against the tenant's form; unchanged when absent. */
  customFields?: { values: unknown; isApi?: boolean };
};

/**
 * Changes a submitted application before anyone decides it (/loans/loan-applications/edit):
 * amount, number of repayments and form fields, checked against the product's limits. The
 * application lifecycle's dry run says whether 'edit' is allowed (only while submitted); its loan,
 * still pending approval, gets the same principal, term and recomputed terms. Audited with before
 * and after. `loanId` is the application's loan (the page's URL names the loan).
 */
export async function editApplication(
  tx: Tx,
  actor: Actor,
  loanId: string,
  input: EditApplicationInput,
): Promise<ApplicationRow> {
  assertUuid(loanId, 'loanId');
  await assertInScope(tx, actor, 'loan', loanId);
  const found = await tx.query<Pick<LoanApplicationsRow, 'id'>>(`select id from loan_applications where loan_id = $1`, [
    loanId,
  ]);
  if (!found[0]) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'loanId' });
  const application = await lockApplication(tx, actor, found[0].id);
  const edit = dryRunApplication(application.status, await applicationContext(tx, actor, application)).find(
    (e) => e.action === 'edit',
  );
  if (!edit?.allowed) {
    throw new AppError('CONFLICT', 'This application has been decided and can no longer be edited', {
      field: 'status',
      details: { reason: 'wrong_state' },
    });
  }
  if (input.expectedVersion !== undefined && input.expectedVersion !== application.version) {
    throw new AppError('CONFLICT', 'The application was changed by someone else; reload it and try again', {
      field: 'version',
    });
  }
  const product = await productOf(tx, application);
  const { minor: principal } = positiveAmount(input.principal, product.currency, 'principal');
  assertWithinProduct(product, principal, input.numberOfRepayments);
  const expected =
    input.expectedDisbursementDate === undefined
      ? application.expected_disbursement_date
      : expectedDisbursementDate(input.expectedDisbursementDate, await businessDate(tx, actor.tenantId));
  const formData = input.formData ?? application.form_data;
  const customFields =
    input.customFields === undefined
      ? application.custom_fields
      : await prepareCustomValues(tx, 'loan_application', input.customFields.values, application.custom_fields, {
          isApi: input.customFields.isApi,
        });
  const [updated] = await tx.query<ApplicationRow>(
    `update loan_applications set principal = $2, number_of_repayments = $3, form_data = $4::jsonb, expected_disbursement_date = $5,
       custom_fields = $6::jsonb, version = version + 1
      where id = $1 returning *`,
    [
      application.id,
      principal,
      input.numberOfRepayments,
      JSON.stringify(formData),
      expected,
      JSON.stringify(customFields),
    ],
  );
  const loan = await lockLoan(tx, loanId);
  if (loan.status !== 'SUBMITTED_AND_PENDING_APPROVAL') {
    throw new AppError('CONFLICT', 'The loan of this application is no longer pending approval', {
      field: 'status',
      details: { reason: 'wrong_state' },
    });
  }
  const terms = termsFor(product, {
    principal,
    numberOfRepayments: input.numberOfRepayments,
    annualInterestRate: application.annual_interest_rate,
    disbursementDate: expected,
  });
  await tx.query(
    `update loans set principal = $2, number_of_repayments = $3, terms = $4::jsonb, expected_disbursement_date = $5, version = version + 1, updated_at = now() where id = $1`,
    [loanId, principal, input.numberOfRepayments, JSON.stringify(terms), expected],
  );
  await auditSuccess(
    tx,
    actor,
    'application.edit',
    'loan_application',
    application.id,
    {
      principal: application.principal,
      numberOfRepayments: application.number_of_repayments,
      formData: application.form_data,
      expectedDisbursementDate: application.expected_disbursement_date,
      customFields: application.custom_fields,
    },
    {
      principal,
      numberOfRepayments: input.numberOfRepayments,
      formData,
      expectedDisbursementDate: expected,
      customFields,
    },
  );
  return { ...updated, currency: currencyCode(updated.currency) };
}

/** editApplication addressed by the application's id (the JSON API's URL names the application). */
export async function editApplicationById(
  tx: Tx,
  actor: Actor,
  applicationId: string,
  input: EditApplicationInput,
): Promise<ApplicationRow> {
  assertUuid(applicationId, 'applicationId');
  await assertInScope(tx, actor, 'application', applicationId);
  const rows = await tx.query<Pick<LoanApplicationsRow, 'loan_id'>>(
    `select loan_id from loan_applications where id = $1`,
    [applicationId],
  );
  if (!rows[0]?.loan_id) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'applicationId' });
  return editApplication(tx, actor, rows[0].loan_id, input);
}

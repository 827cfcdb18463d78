import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { currencyDigits, formatMinor } from '../money/money.ts';
import type { Actor } from './actor.ts';
import { applicationContext } from './commands/decide-application.ts';
import type { ApplicationRow } from './commands/submit-application.ts';
import { dryRunApplication, APPLICATION_STATUSES, type ApplicationStatus } from './lifecycle/application.ts';
import { assertUuid } from './loans.ts';

export function applicationJson(row: ApplicationRow) {
  const currency = row.currency.trim();
  return {
    id: row.id, status: row.status, customerId: row.customer_id, productId: row.product_id, offerId: row.offer_id, loanId: row.loan_id,
    currency, principal: formatMinor(row.principal, currencyDigits(currency)), numberOfRepayments: row.number_of_repayments,
    annualInterestRate: row.annual_interest_rate, expectedDisbursementDate: row.expected_disbursement_date,
    submittedBy: row.submitted_by, submittedAt: row.submitted_at, decidedBy: row.decided_by, decidedAt: row.decided_at,
    decisionNote: row.decision_note, formData: row.form_data, version: row.version,
  };
}

/** The application with the actions this actor may take now (maker-checker shown as a reason). */
export async function getApplicationView(tx: Tx, actor: Actor, applicationId: string) {
  assertUuid(applicationId, 'applicationId');
  const rows = await tx.query<ApplicationRow>(`select * from loan_applications where id = $1`, [applicationId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'applicationId' });
  const context = await applicationContext(tx, actor, rows[0]);
  return {
    ...applicationJson(rows[0]),
    actions: dryRunApplication(rows[0].status, context).map((e) => ({
      action: e.action, allowed: e.allowed, ...(e.reason ? { reason: e.reason.code, message: e.reason.message } : {}),
    })),
  };
}

export async function listApplications(tx: Tx, query: { status?: string; limit?: number }) {
  if (query.status && !(APPLICATION_STATUSES as readonly string[]).includes(query.status)) {
    throw new AppError('BAD_REQUEST', `status must be one of ${APPLICATION_STATUSES.join(', ')}`, { field: 'status' });
  }
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const rows = query.status
    ? await tx.query<ApplicationRow>(`select * from loan_applications where status = $1 order by submitted_at desc, id desc limit $2`, [query.status as ApplicationStatus, limit])
    : await tx.query<ApplicationRow>(`select * from loan_applications order by submitted_at desc, id desc limit $1`, [limit]);
  return { items: rows.map(applicationJson) };
}

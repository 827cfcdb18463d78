import { storedValues } from '../forms/custom-fields.ts';
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import type { Actor } from './actor.ts';
import { applicationContext } from './commands/decide-application.ts';
import type { ApplicationRow } from './commands/submit-application.ts';
import { dryRunApplication, APPLICATION_STATUSES, type ApplicationStatus } from './lifecycle/application.ts';
import { assertUuid, isUuid } from './loans.ts';
import { isInNodes } from '../auth/data-permissions.ts';

export function applicationJson(row: ApplicationRow) {
  const principal = fromMinor(row.principal, row.currency);
  return {
    id: row.id,
    status: row.status,
    customerId: row.customer_id,
    productId: row.product_id,
    offerId: row.offer_id,
    loanId: row.loan_id,
    currency: principal.currency,
    principal: toDecimalString(principal),
    numberOfRepayments: row.number_of_repayments,
    annualInterestRate: row.annual_interest_rate,
    expectedDisbursementDate: row.expected_disbursement_date,
    submittedBy: row.submitted_by,
    submittedAt: row.submitted_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    decisionNote: row.decision_note,
    formData: row.form_data,
    customFields: storedValues(row.custom_fields),
    version: row.version,
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
      action: e.action,
      allowed: e.allowed,
      ...(e.reason ? { reason: e.reason.code, message: e.reason.message } : {}),
    })),
  };
}

/** SQL condition: the application (alias a) belongs to a customer in the node set bound as `param`. */
function applicationScopeSql(param: string): string {
  return `exists (select 1 from customers c where c.tenant_id = a.tenant_id and c.id = a.customer_id
            and (c.branch_id = any(${param}::uuid[]) or c.officer_id = any(${param}::uuid[])))`;
}

/** Whether the application's customer is inside the hierarchy scope (null nodes = unrestricted); unknown ids are not. */
export async function isApplicationInScope(
  tx: Tx,
  applicationId: string,
  scopeNodes: string[] | null,
): Promise<boolean> {
  if (!isUuid(applicationId)) return false;
  if (scopeNodes === null) return true;
  return isInNodes(tx, 'application', applicationId, scopeNodes);
}

/** Applications newest first; `scopeNodes` (hierarchy data permissions, null = all) restricts them to the caller's customers. */
export async function listApplications(
  tx: Tx,
  query: { status?: string; limit?: number; scopeNodes?: string[] | null },
) {
  if (query.status && !(APPLICATION_STATUSES as readonly string[]).includes(query.status)) {
    throw new AppError('BAD_REQUEST', `status must be one of ${APPLICATION_STATUSES.join(', ')}`, { field: 'status' });
  }
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.status) {
    params.push(query.status as ApplicationStatus);
    where.push(`a.status = $${params.length}`);
  }
  if (query.scopeNodes) {
    params.push(query.scopeNodes);
    where.push(applicationScopeSql(`$${params.length}`));
  }
  params.push(limit);
  const rows = await tx.query<ApplicationRow>(
    `select a.* from loan_applications a ${where.length ? `where ${where.join(' and ')}` : ''}
      order by a.submitted_at desc, a.id desc limit $${params.length}`,
    params,
  );
  return { items: rows.map(applicationJson) };
}

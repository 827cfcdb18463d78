import type { Tx } from '#lib/db/index.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import type { Actor } from '../actor.ts';
import { transitionApplication, type ApplicationAction, type ApplicationContext } from '../lifecycle/application.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { lockLoan } from '../loans.ts';
import { loadLendingSettings } from '../products.ts';
import { auditSuccess } from './common.ts';
import { lockApplication, type ApplicationRow } from './submit-application.ts';
import { currencyCode } from '#lib/money/money.ts';

const LOAN_ACTION = { approve: 'approve', reject: 'reject', withdraw: 'withdraw' } as const;
const LOAN_EMPTY_CONTEXT = {
  outstanding: 0n,
  interestOutstanding: 0n,
  chargesOutstanding: 0n,
  hasReversibleTransactions: false,
};

/** The maker-checker context of an application for this actor. */
export async function applicationContext(
  tx: Tx,
  actor: Actor,
  application: ApplicationRow,
): Promise<ApplicationContext> {
  const settings = await loadLendingSettings(tx);
  return {
    actorId: actor.userId,
    actorIsAdmin: actor.isAdmin,
    submittedBy: application.submitted_by,
    principal: application.principal,
    adminThreshold: settings.approvalAdminThreshold,
  };
}

/**
 * Approves, rejects or withdraws a submitted application and moves its loan along (approve →
 * APPROVED, reject → REJECTED, withdraw → WITHDRAWN_BY_CLIENT). Approval is maker-checker: never by
 * the submitter, and by an admin above the tenant's threshold. Locks the application row, so two
 * checkers racing on one application decide it once.
 */
export async function decideApplication(
  tx: Tx,
  actor: Actor,
  applicationId: string,
  action: Exclude<ApplicationAction, 'edit'>,
  note?: string | null,
): Promise<ApplicationRow> {
  const application = await lockApplication(tx, actor, applicationId);
  const next = transitionApplication(application.status, action, await applicationContext(tx, actor, application));
  const today = await businessDate(tx, actor.tenantId);
  if (application.loan_id) {
    const loan = await lockLoan(tx, application.loan_id);
    const status = transitionLoan(loan.status, LOAN_ACTION[action], LOAN_EMPTY_CONTEXT);
    await tx.query(
      `update loans set status = $2, approved_on = $3, approved_by = $4, closed_on = $5, version = version + 1, updated_at = now() where id = $1`,
      [
        loan.id,
        status,
        action === 'approve' ? today : null,
        action === 'approve' ? actor.userId : null,
        action === 'approve' ? null : today,
      ],
    );
  }
  const [updated] = await tx.query<ApplicationRow>(
    `update loan_applications set status = $2, decided_by = $3, decided_at = now(), decision_note = $4, version = version + 1
     where id = $1 returning *`,
    [application.id, next, actor.userId, note ?? null],
  );
  if (application.offer_id && action !== 'approve') {
    await tx.query(
      `update offers set status = 'rejected', rejected_reason = $2, updated_at = now(), version = version + 1 where id = $1 and status = 'requested'`,
      [application.offer_id, `application ${next}`],
    );
  }
  await auditSuccess(
    tx,
    actor,
    `application.${action}`,
    'loan_application',
    application.id,
    { status: application.status },
    { status: next, note: note ?? null },
  );
  return { ...updated, currency: currencyCode(updated.currency) };
}

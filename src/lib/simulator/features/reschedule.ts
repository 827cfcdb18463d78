import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { approveRescheduleRequest, submitRescheduleRequest } from '../../lending/commands/reschedule-loan.ts';
import { businessDate } from '../../tenancy/tenant.ts';

export type SimulatedReschedule = { requestId: string; fromDate: string; extraTerms: number };

/**
 * The simulator's reschedule: on an active loan, the maker asks to stretch the loan by `extraTerms`
 * installments from the next installment not yet paid that falls due on or after the business date,
 * and the checker (another user) approves it, so the schedule, the replayed payments and the ledger
 * go through the same commands a lender's staff uses. Returns null when the loan has no such
 * installment, is not active, or already has a request waiting (nothing is written then).
 */
export async function simulateReschedule(
  tx: Tx,
  actors: { maker: Actor; checker: Actor },
  loanId: string,
  extraTerms = 2,
): Promise<SimulatedReschedule | null> {
  const today = await businessDate(tx, actors.maker.tenantId);
  const [candidate] = await tx.query<{ due_date: string }>(
    `select i.due_date from loan_installments i join loans l on l.id = i.loan_id
      where i.loan_id = $1 and l.status = 'ACTIVE' and not i.is_down_payment and i.obligations_met_on is null
        and i.due_date >= $2
        and not exists (select 1 from loan_reschedule_requests r where r.loan_id = l.id and r.status = 'submitted')
      order by i.number limit 1`,
    [loanId, today],
  );
  if (!candidate) return null;
  const request = await submitRescheduleRequest(tx, actors.maker, loanId, {
    rescheduleFromDate: candidate.due_date,
    extraTerms,
    reason: 'Simulated payment relief',
  });
  await approveRescheduleRequest(tx, actors.checker, loanId, request.id, 'Simulated approval');
  return { requestId: request.id, fromDate: candidate.due_date, extraTerms };
}

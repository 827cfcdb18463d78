import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { reAmortizeLoan } from '../../lending/commands/reage-loan.ts';
import { businessDate } from '../../tenancy/tenant.ts';

/**
 * Re-amortisation for the simulator (issue 17). Fineract re-amortises the same loans it re-ages
 * (progressive, interest-free, advanced payment allocation: the "pay in four" product of
 * features/reage.ts), but before maturity: the unpaid principal of the installments already due is
 * spread over the installments still to come (src/lib/lending/commands/reage-loan.ts). A borrower who
 * fell behind on a purchase gets it from an administrator a few days after the missed due date, then
 * pays the new installments when due.
 */

export type SimulatedReAmortization = { transactionId: string; principal: bigint };

/**
 * The simulator's re-amortisation: on an ACTIVE loan not past its maturity, with principal of an
 * installment due on or before the business date still unpaid and a regular installment still to
 * come, the actor (an administrator) re-amortises it through the same command a lender's staff uses
 * (schedule rewritten, transaction, audit). Returns null when the loan does not qualify today (the
 * borrower caught up, or no installment is left to take the arrears; nothing written).
 */
export async function simulateReAmortization(
  tx: Tx,
  actor: Actor,
  loanId: string,
): Promise<SimulatedReAmortization | null> {
  const today = await businessDate(tx, actor.tenantId);
  const [loan] = await tx.query<{ status: string; overdue: bigint; ahead: number }>(
    `select l.status,
            coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off) filter (where i.due_date <= $2), 0)::int8 as overdue,
            (count(*) filter (where i.due_date > $2 and not i.is_down_payment))::int as ahead
       from loans l join loan_installments i on i.loan_id = l.id where l.id = $1 group by l.status`,
    [loanId, today],
  );
  if (!loan || loan.status !== 'ACTIVE' || BigInt(loan.overdue) <= 0n || loan.ahead === 0) return null;
  const { transaction } = await reAmortizeLoan(tx, actor, {
    loanId,
    note: 'Simulated re-amortisation after a missed payment',
  });
  return { transactionId: transaction.id, principal: BigInt(transaction.principal_portion) };
}

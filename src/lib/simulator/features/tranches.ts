import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { disburseNextTranche } from '../../lending/commands/tranches.ts';
import { businessDate } from '../../tenancy/tenant.ts';

export type SimulatedTranche = { number: number; date: string; amount: bigint; transactionId: string };

/**
 * The simulator's tranche: on an ACTIVE multi-disbursement loan whose next expected tranche is due
 * (expected on or before the business date) and whose business date is before its last due date, the
 * actor pays that tranche out through the same command a lender's staff uses (schedule recomputed,
 * DISBURSEMENT, ledger, audit). Returns null when there is nothing to pay out today (nothing written).
 */
export async function simulateNextTranche(tx: Tx, actor: Actor, loanId: string): Promise<SimulatedTranche | null> {
  const today = await businessDate(tx, actor.tenantId);
  const [candidate] = await tx.query<{ number: number }>(
    `select t.number from loan_tranches t join loans l on l.id = t.loan_id
      where t.loan_id = $1 and l.status = 'ACTIVE' and t.disbursed_on is null and t.expected_date <= $2
        and exists (select 1 from loan_installments i where i.loan_id = l.id and i.due_date > $2)
        and not exists (select 1 from loan_transactions x where x.loan_id = l.id and x.transaction_date > $2)
      order by t.number limit 1`,
    [loanId, today],
  );
  if (!candidate) return null;
  const result = await disburseNextTranche(tx, actor, { loanId, date: today, note: 'Simulated tranche' });
  const paid = result.tranches.find((t) => t.number === candidate.number)!;
  return { number: paid.number, date: today, amount: paid.amount, transactionId: result.transaction.id };
}

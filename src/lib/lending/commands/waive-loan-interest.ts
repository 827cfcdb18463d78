import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { waiveLoan } from './waive-loan.ts';

/** Waives interest (all outstanding, or `amount`), oldest installment first. See waiveLoan. */
export function waiveLoanInterest(
  tx: Tx,
  actor: Actor,
  input: { loanId: string; amount?: string | bigint | null; date?: string; note?: string | null },
) {
  return waiveLoan(tx, actor, { ...input, kind: 'interest' });
}

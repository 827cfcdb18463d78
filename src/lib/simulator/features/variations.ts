import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { varyInstallments } from '../../lending/commands/vary-installments.ts';
import type { ProductRow } from '../../lending/products.ts';
import { decodeMinor, formatMinor } from '../../money/money.ts';
import { addDays, isoWeekday } from '../../schedule/dates.ts';

/**
 * Variable installments for the simulator (issue 17): before disbursement, a loan of a product that
 * allows them gets one installment moved a few days later (a borrower's pay day) or its amount fixed
 * above the EMI (a borrower expecting a bonus), through the same command as the loan page's "Edit
 * installments" (src/lib/lending/commands/vary-installments.ts). The engine recomputes the rest and
 * disbursement lays the loan out with it.
 */

/** The gaps the simulator's variable-installment product allows between installments (days). */
export const VARIATION_GAPS = { variableInstallmentMinGapDays: 15, variableInstallmentMaxGapDays: 45 } as const;

export type PlannedVariation =
  /** Installment `installment` (1-based, not the last) falls due `days` days later (3–8). */
  | { type: 'DUE_DATE'; installment: number; days: number }
  /** Installment `installment` (not the last) is `percent` % of its scheduled amount. */
  | { type: 'AMOUNT'; installment: number; percent: number };

/**
 * Stores the variation on a loan pending disbursement; returns false (nothing written) when its product
 * does not allow variable installments (a tenant seeded before it did) or the installment is the last.
 */
export async function simulateVariation(
  tx: Tx,
  actor: Actor,
  loanId: string,
  product: Pick<ProductRow, 'allow_variable_installments' | 'digits_after_decimal'>,
  plan: PlannedVariation,
): Promise<boolean> {
  if (product.allow_variable_installments !== true) return false;
  const { schedule } = await varyInstallments(tx, actor, { loanId, preview: true });
  const regular = schedule.installments.filter((i) => !i.downPayment);
  const target = regular[plan.installment - 1];
  if (!target || plan.installment >= regular.length) return false;
  const digits = product.digits_after_decimal;
  let variation:
    { type: 'DUE_DATE'; dueDate: string; newDueDate: string } | { type: 'AMOUNT'; dueDate: string; amount: string };
  if (plan.type === 'DUE_DATE') {
    let newDueDate = addDays(target.dueDate, plan.days);
    // Not on a Sunday (the simulated lender's weekly day off).
    if (isoWeekday(newDueDate) === 7) newDueDate = addDays(newDueDate, 1);
    variation = { type: 'DUE_DATE', dueDate: target.dueDate, newDueDate };
  } else {
    // Whole currency units, as a borrower would ask for.
    const unit = 10n ** BigInt(digits);
    const amount = ((decodeMinor(target.total, digits) * BigInt(plan.percent)) / 100n / unit) * unit;
    variation = { type: 'AMOUNT', dueDate: target.dueDate, amount: formatMinor(amount, digits) };
  }
  await varyInstallments(tx, actor, { loanId, variations: [variation] });
  return true;
}

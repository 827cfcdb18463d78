import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { varyInstallments } from '../../lending/commands/vary-installments.ts';
import type { ProductRow } from '../../lending/products.ts';
import { decodeMinor, formatMinor } from '../../money/money.ts';

/**
 * A loan's own installment amount for the simulator (issue 17): before disbursement, a borrower who
 * can afford more than the EMI asks for a round installment above it (Fineract `fixedEmiAmount`,
 * allowed by the product's `allow_fixed_emi`), through the same command as the loan page's "Edit
 * installments" (src/lib/lending/commands/vary-installments.ts). The engine then lays the schedule out
 * with that amount until the balance is repaid: fewer installments, less interest.
 */

/**
 * Fixes the installment amount of a loan pending disbursement at `percent` % of the EMI its product
 * lays out, in whole currency units; returns false (nothing written) when its product does not allow
 * it (a tenant seeded before it did) or the schedule has no regular installment.
 */
export async function simulateFixedEmi(
  tx: Tx,
  actor: Actor,
  loanId: string,
  product: Pick<ProductRow, 'allow_fixed_emi' | 'digits_after_decimal'>,
  percent: number,
): Promise<boolean> {
  if (product.allow_fixed_emi !== true) return false;
  const { schedule } = await varyInstallments(tx, actor, { loanId, preview: true });
  const first = schedule.installments.find((i) => !i.downPayment);
  if (!first) return false;
  const digits = product.digits_after_decimal;
  // Whole currency units, as a borrower would ask for.
  const unit = 10n ** BigInt(digits);
  const amount = ((decodeMinor(first.total, digits) * BigInt(percent)) / 100n / unit) * unit;
  await varyInstallments(tx, actor, { loanId, fixedEmiAmount: formatMinor(amount, digits) });
  return true;
}

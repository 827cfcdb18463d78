import type { Tx } from '../../db/index.ts';
import type { Actor } from '../../lending/actor.ts';
import { reAgeLoan } from '../../lending/commands/reage-loan.ts';
import type { ProductInput } from '../../lending/products.ts';
import { simulatorProductBase } from './product.ts';
import { addDays } from '../../schedule/dates.ts';
import { businessDate } from '../../tenancy/tenant.ts';

/**
 * Re-ageing for the simulator (issue 17). Fineract re-ages only progressive, interest-free loans with
 * the advanced payment allocation (src/lib/lending/commands/reage-loan.ts), which is what "buy now,
 * pay later" loans are: a quarter paid at purchase, the rest in three installments every 15 days, no
 * interest, a flat late fee. Borrowers of this product who stop paying are re-aged some days after
 * maturity by an administrator: the unpaid principal moves into a few new installments, which they
 * then pay.
 */
export const BNPL_PRODUCT_CODE = 'SIM-BNPL';

/** A whole product input for the simulator's tenant (amounts in the currency's minor units). */
export function bnplProduct(currency: string, digitsAfterDecimal: number): ProductInput {
  const unit = 10n ** BigInt(digitsAfterDecimal);
  return {
    ...simulatorProductBase(
      BNPL_PRODUCT_CODE,
      'Pay in four — interest-free, every 15 days',
      currency,
      digitsAfterDecimal,
      {
        min: 50n,
        max: 2_000n,
      },
    ),
    minRepayments: 3,
    maxRepayments: 3,
    defaultRepayments: 3,
    annualInterestRate: '0',
    repaymentEvery: 15,
    repaymentFrequency: 'DAYS',
    scheduleType: 'PROGRESSIVE',
    interestMethod: 'DECLINING_BALANCE',
    amortization: 'EQUAL_INSTALLMENTS',
    downPaymentPercent: '25',
    allocationStrategy: 'advanced-payment-allocation-strategy',
    graceOnArrearsAgeing: 1,
    penalties: [
      {
        code: 'LATE-BNPL',
        name: 'Late payment fee',
        kind: 'FLAT',
        amount: String(5n * unit),
        trigger: 'OVERDUE',
        graceDays: 3,
      },
    ],
  };
}

/** How a planned re-age lays out the new installments. */
export type ReAgeRequest = { installments: number; everyDays: number };
export type SimulatedReAge = { transactionId: string; startDate: string };

/**
 * The simulator's re-age: on an ACTIVE loan past its maturity with principal still unpaid, the actor
 * (an administrator) moves that principal into `installments` new installments, the first
 * `everyDays` days after the business date, through the same command a lender's staff uses (schedule
 * rewritten, transaction, audit). Returns null when the loan does not qualify today (nothing written).
 */
export async function simulateReAge(
  tx: Tx,
  actor: Actor,
  loanId: string,
  request: ReAgeRequest,
): Promise<SimulatedReAge | null> {
  const today = await businessDate(tx, actor.tenantId);
  const [loan] = await tx.query<{ status: string; maturity: string; unpaid: bigint }>(
    `select l.status, to_char(max(i.due_date), 'YYYY-MM-DD') as maturity,
            sum(i.principal_due - i.principal_paid - i.principal_written_off)::int8 as unpaid
       from loans l join loan_installments i on i.loan_id = l.id where l.id = $1 group by l.status`,
    [loanId],
  );
  if (!loan || loan.status !== 'ACTIVE' || loan.maturity > today || BigInt(loan.unpaid) <= 0n) return null;
  const startDate = addDays(today, request.everyDays);
  const { transaction } = await reAgeLoan(tx, actor, {
    loanId,
    startDate,
    frequencyType: 'DAYS',
    frequencyNumber: request.everyDays,
    numberOfInstallments: request.installments,
    note: 'Simulated re-age after missed payments',
  });
  return { transactionId: transaction.id, startDate };
}

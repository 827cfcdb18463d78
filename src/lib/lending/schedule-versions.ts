import type { Tx } from '#lib/db/index.ts';
import type { InstallmentRow } from './installments.ts';
import type { TransactionRow } from './loans.ts';

/**
 * The history of a loan's installments across the rewrites of its schedule (migration 1170). Each
 * rewrite (replaceLoanSchedule) keeps the due dates and dues it replaced, with the business date, and
 * what its replay settled per component beyond the transactions' own portions. Rebuilding month-end
 * snapshots from history (src/lib/analytics/snapshots.ts) then reads, for each past month end, the
 * installments in force at its close and the settled amounts the close saw, instead of today's.
 */

/** The transaction types whose portions settle installments (repayments, waivers, write-offs). */
export const SETTLING_TYPES: readonly string[] = ['REPAYMENT', 'WAIVE_INTEREST', 'WAIVE_CHARGES', 'WRITE_OFF'];

export type ScheduleRewrite = {
  /** The installments being replaced, as they stood (charges applied so far included). */
  replaced: readonly InstallmentRow[];
  /** Every transaction of the loan at the rewrite, reversed ones included. */
  transactions: readonly TransactionRow[];
  /** The new installments after the live transactions were replayed onto them. */
  replayed: readonly InstallmentRow[];
  /** The loan's credit balance after the replay. */
  creditBalance: bigint;
};

const total = <T>(rows: readonly T[], pick: (r: T) => bigint) => rows.reduce((s, r) => s + pick(r), 0n);

export async function recordScheduleVersion(
  tx: Tx,
  tenantId: string,
  loanId: string,
  rewrite: ScheduleRewrite,
): Promise<void> {
  const rows = [...rewrite.replaced].sort((a, b) => a.number - b.number);
  if (rows.length === 0) return;
  // Charges applied up to this transaction are inside the dues below (the rebuild takes later ones off).
  const lastSeq = rewrite.transactions.reduce((m, t) => (t.seq > m ? t.seq : m), 0n);
  const live = rewrite.transactions.filter((t) => !t.is_reversed && t.type !== 'REVERSAL');
  const settling = live.filter((t) => SETTLING_TYPES.includes(t.type));
  const after = rewrite.replayed;
  const reallocated = {
    principal:
      total(after, (r) => r.principal_paid + r.principal_written_off) - total(settling, (t) => t.principal_portion),
    interest:
      total(after, (r) => r.interest_paid + r.interest_waived + r.interest_written_off) -
      total(settling, (t) => t.interest_portion),
    fee: total(after, (r) => r.fee_paid + r.fee_waived + r.fee_written_off) - total(settling, (t) => t.fee_portion),
    penalty:
      total(after, (r) => r.penalty_paid + r.penalty_waived + r.penalty_written_off) -
      total(settling, (t) => t.penalty_portion),
    credit:
      rewrite.creditBalance -
      total(
        live.filter((t) => t.type === 'REPAYMENT'),
        (t) => t.overpayment_portion,
      ) +
      total(
        live.filter((t) => t.type === 'CREDIT_BALANCE_REFUND'),
        (t) => t.amount,
      ),
  };
  await tx.query(
    `insert into loan_schedule_versions (tenant_id, loan_id, version, replaced_on, last_seq, due_dates, principal_due,
       interest_due, fee_due, penalty_due, reallocated_principal, reallocated_interest, reallocated_fee,
       reallocated_penalty, reallocated_credit)
     select $1, $2, coalesce((select max(v.version) from loan_schedule_versions v where v.loan_id = $2), 0) + 1,
            t.business_date, $3, $4::date[], $5::int8[], $6::int8[], $7::int8[], $8::int8[], $9, $10, $11, $12, $13
       from tenants t where t.id = $1`,
    [
      tenantId,
      loanId,
      lastSeq,
      rows.map((r) => r.due_date),
      rows.map((r) => r.principal_due.toString()),
      rows.map((r) => r.interest_due.toString()),
      rows.map((r) => r.fee_due.toString()),
      rows.map((r) => r.penalty_due.toString()),
      reallocated.principal,
      reallocated.interest,
      reallocated.fee,
      reallocated.penalty,
      reallocated.credit,
    ],
  );
}

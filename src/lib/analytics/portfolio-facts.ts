import type { Tx } from '../db/index.ts';
import type { MonthEndWriter } from './month-end.ts';

/** The days-past-due band of a snapshot row `s` (same bounds as `dpdBand` in portfolio-math.ts). */
export const DPD_BAND_SQL = `case when s.status <> 'ACTIVE' or s.past_due_days <= 0 then 0
  when s.past_due_days <= 30 then 1 when s.past_due_days <= 60 then 2 when s.past_due_days <= 90 then 3 else 4 end`;

/**
 * Writes `analytics_month_facts` for one month end (migration 0900): the month's per-loan snapshots
 * with their loan's product and scope columns, grouped by the facts' dimensions; the month's
 * disbursements and write-offs from the loan transactions dated in the month (a reversed one, and the
 * reversal, count for nothing). Idempotent: the month's rows are deleted first.
 */
export async function writePortfolioFacts(tx: Tx, tenantId: string, monthEnd: string): Promise<number> {
  const monthStart = `${monthEnd.slice(0, 8)}01`;
  await tx.query(`delete from analytics_month_facts where month_end = $1::date`, [monthEnd]);
  const rows = await tx.query(
    `with s as (
       select s.loan_id, s.status, s.currency, s.principal_outstanding, s.total_outstanding, s.past_due_days,
              s.principal_paid_in_month, s.interest_paid_in_month, s.fee_paid_in_month, s.penalty_paid_in_month,
              s.total_paid_in_month, l.product_id, l.customer_branch_id, l.customer_officer_id, l.officer_id
         from loan_month_end_snapshots s
         join loans l on l.tenant_id = s.tenant_id and l.id = s.loan_id
        where s.month_end = $2::date
     ), moves as (
       select t.loan_id,
              count(*) filter (where t.type = 'DISBURSEMENT') > 0 as is_disbursed,
              coalesce(sum(t.amount) filter (where t.type = 'DISBURSEMENT'), 0)::int8 as disbursed,
              count(*) filter (where t.type = 'WRITE_OFF') > 0 as is_written_off,
              coalesce(sum(t.principal_portion) filter (where t.type = 'WRITE_OFF'), 0)::int8 as written_off
         from loan_transactions t
         join s on s.loan_id = t.loan_id
        where t.type in ('DISBURSEMENT', 'WRITE_OFF') and t.transaction_date between $3::date and $2::date
          and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
        group by t.loan_id
     )
     insert into analytics_month_facts (tenant_id, month_end, product_id, customer_branch_id, customer_officer_id,
       officer_id, currency, dpd_band, loans, active_loans, principal_outstanding, total_outstanding, disbursed_count,
       disbursed_amount, written_off_count, written_off_principal, collected_principal, collected_interest,
       collected_fees, collected_penalties, collected_total)
     select $1, $2::date, s.product_id, s.customer_branch_id, s.customer_officer_id, s.officer_id, s.currency,
            ${DPD_BAND_SQL} as band,
            count(*)::int, count(*) filter (where s.status = 'ACTIVE')::int,
            sum(s.principal_outstanding)::int8, sum(s.total_outstanding)::int8,
            count(*) filter (where m.is_disbursed)::int, coalesce(sum(m.disbursed), 0)::int8,
            count(*) filter (where m.is_written_off)::int, coalesce(sum(m.written_off), 0)::int8,
            sum(s.principal_paid_in_month)::int8, sum(s.interest_paid_in_month)::int8,
            sum(s.fee_paid_in_month)::int8, sum(s.penalty_paid_in_month)::int8, sum(s.total_paid_in_month)::int8
       from s left join moves m on m.loan_id = s.loan_id
      group by s.product_id, s.customer_branch_id, s.customer_officer_id, s.officer_id, s.currency, band
     returning 1`,
    [tenantId, monthEnd, monthStart],
  );
  return rows.length;
}

export const PORTFOLIO_FACTS_WRITER: MonthEndWriter = { name: 'portfolio', write: writePortfolioFacts };

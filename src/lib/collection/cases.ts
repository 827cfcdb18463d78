import type { Tx } from '../db/index.ts';
import { recomputePriorities } from './priority.ts';

/**
 * Refreshes `collection_cases` from `loan_delinquency` at `businessDate` (the close's new date), set-based:
 *  - every active loan with days past due gets a case in the bucket whose range holds its days past due
 *    (`bucket_since` moves to the date when the bucket changes; `episode_start` is the first date of
 *    the overdue episode, kept while the loan stays overdue);
 *  - each change of bucket (entry included) appends a `bucket_move` activity;
 *  - loans no longer overdue (cured, repaid, written off) lose their case with a `bucket_move` to none;
 *  - priorities are recomputed.
 * (Minimal version written with the close step; the collect branch's version replaces it at merge.)
 */
export async function refreshCollectionCases(
  tx: Tx,
  tenantId: string,
  businessDate: string,
): Promise<{ cases: number; moves: number }> {
  const source = `
    select l.id as loan_id, l.customer_id, l.customer_branch_id, l.customer_officer_id, l.currency,
           d.past_due_days, d.delinquent_amount,
           (select b.id from collection_buckets b
             where b.tenant_id = $1 and b.min_days <= d.past_due_days and (b.max_days is null or d.past_due_days <= b.max_days)
             order by b.position limit 1) as bucket_id
      from loan_delinquency d join loans l on l.tenant_id = d.tenant_id and l.id = d.loan_id
     where d.tenant_id = $1 and d.past_due_days > 0 and l.status = 'ACTIVE'`;
  const moved = await tx.query(
    `with src as (${source})
     insert into collection_activities (tenant_id, loan_id, customer_id, kind, details, business_date, actor)
     select $1, s.loan_id, s.customer_id, 'bucket_move',
            jsonb_build_object('from', c.bucket_id, 'to', s.bucket_id, 'pastDueDays', s.past_due_days), $2, 'system:close'
       from src s left join collection_cases c on c.tenant_id = $1 and c.loan_id = s.loan_id
      where c.loan_id is null or c.bucket_id is distinct from s.bucket_id
     returning loan_id`,
    [tenantId, businessDate],
  );
  const cured = await tx.query(
    `with gone as (
       delete from collection_cases c
        where c.tenant_id = $1 and not exists (
          select 1 from loan_delinquency d join loans l on l.tenant_id = d.tenant_id and l.id = d.loan_id
           where d.tenant_id = $1 and d.loan_id = c.loan_id and d.past_due_days > 0 and l.status = 'ACTIVE')
       returning c.loan_id, c.customer_id, c.bucket_id)
     insert into collection_activities (tenant_id, loan_id, customer_id, kind, details, business_date, actor)
     select $1, g.loan_id, g.customer_id, 'bucket_move', jsonb_build_object('from', g.bucket_id, 'to', null, 'pastDueDays', 0),
            $2, 'system:close'
       from gone g
     returning loan_id`,
    [tenantId, businessDate],
  );
  const upserted = await tx.query(
    `with src as (${source})
     insert into collection_cases (tenant_id, loan_id, customer_id, customer_branch_id, customer_officer_id, bucket_id,
       bucket_since, episode_start, past_due_days, overdue_amount, currency, updated_on)
     select $1, s.loan_id, s.customer_id, s.customer_branch_id, s.customer_officer_id, s.bucket_id,
            case when s.bucket_id is null then null else $2::date end, $2, s.past_due_days, s.delinquent_amount, s.currency, $2
       from src s
     on conflict (tenant_id, loan_id) do update set
       customer_branch_id = excluded.customer_branch_id, customer_officer_id = excluded.customer_officer_id,
       bucket_since = case when collection_cases.bucket_id is not distinct from excluded.bucket_id
                           then collection_cases.bucket_since else excluded.bucket_since end,
       bucket_id = excluded.bucket_id, past_due_days = excluded.past_due_days,
       overdue_amount = excluded.overdue_amount, updated_on = excluded.updated_on
     returning loan_id`,
    [tenantId, businessDate],
  );
  await recomputePriorities(tx, tenantId);
  return { cases: upserted.length, moves: moved.length + cured.length };
}

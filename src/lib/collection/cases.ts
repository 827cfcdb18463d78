import type { Tx } from '../db/index.ts';
import { currencyDigits } from '../money/money.ts';

/**
 * The collection state of every overdue loan (collection_cases), rebuilt from the engine's
 * delinquency (loan_delinquency, written by the daily close) in one set-based statement:
 *  - a case per ACTIVE loan with past_due_days > 0; cases of loans no longer overdue are deleted;
 *  - its bucket is the tenant's collection bucket whose day range holds the days past due;
 *  - episode_start and bucket_since are kept while the episode and the bucket are unchanged; a new
 *    case starts its episode on the first overdue day, a bucket entered on the day the loan reached
 *    the bucket's first day;
 *  - priority = overdue (major units) × weight_amount + days × weight_days + broken promises ×
 *    weight_broken_promises (collection_priority);
 *  - a bucket change (or the entry into a first bucket) appends a `bucket_move` activity {from, to}.
 * Called by the daily close (after the delinquency step), by the demo seed and by test fixtures.
 */
export async function refreshCollectionCases(
  tx: Tx,
  tenantId: string,
  businessDate: string,
): Promise<{ cases: number; moves: number }> {
  const currencies = (
    await tx.query<{ currency: string }>(
      `select distinct l.currency from loan_delinquency d join loans l on l.tenant_id = d.tenant_id and l.id = d.loan_id
        where d.tenant_id = $1 and d.past_due_days > 0`,
      [tenantId],
    )
  ).map((r) => r.currency.trim());
  const [result] = await tx.query<{ cases: number; moves: number }>(
    `with w as (
       select coalesce(max(weight_amount), 1) as wa, coalesce(max(weight_days), 10) as wd,
              coalesce(max(weight_broken_promises), 100) as wb
         from collection_priority where tenant_id = $1),
     cur as (select unnest($3::text[]) as code, unnest($4::int[]) as digits),
     src as (
       select l.id as loan_id, l.customer_id, l.customer_branch_id, l.customer_officer_id, l.currency,
              d.past_due_days as pdd, d.delinquent_amount as amount, b.id as bucket_id, b.min_days,
              coalesce(cur.digits, 2) as digits
         from loan_delinquency d
         join loans l on l.tenant_id = d.tenant_id and l.id = d.loan_id and l.status = 'ACTIVE'
         left join cur on cur.code = trim(l.currency)
         left join lateral (
           select b.id, b.min_days from collection_buckets b
            where b.tenant_id = $1 and b.min_days <= d.past_due_days and (b.max_days is null or d.past_due_days <= b.max_days)
            order by b.position limit 1) b on true
        where d.tenant_id = $1 and d.past_due_days > 0),
     old as (select c.loan_id, c.bucket_id, c.broken_promises from collection_cases c where c.tenant_id = $1),
     moved as (
       insert into collection_activities (tenant_id, loan_id, customer_id, kind, details, business_date, actor)
       select $1, s.loan_id, s.customer_id, 'bucket_move',
              jsonb_build_object('from', o.bucket_id, 'to', s.bucket_id, 'fromName', ob.name, 'toName', nb.name),
              $2::date, 'system:close'
         from src s
         left join old o on o.loan_id = s.loan_id
         left join collection_buckets ob on ob.tenant_id = $1 and ob.id = o.bucket_id
         left join collection_buckets nb on nb.tenant_id = $1 and nb.id = s.bucket_id
        where s.bucket_id is distinct from o.bucket_id and (o.loan_id is not null or s.bucket_id is not null)
       returning 1),
     up as (
       insert into collection_cases (tenant_id, loan_id, customer_id, customer_branch_id, customer_officer_id, bucket_id,
              bucket_since, episode_start, past_due_days, overdue_amount, currency, broken_promises, priority, updated_on)
       select $1, s.loan_id, s.customer_id, s.customer_branch_id, s.customer_officer_id, s.bucket_id,
              case when s.bucket_id is null then null else $2::date - greatest(s.pdd - s.min_days, 0) end,
              $2::date - (s.pdd - 1), s.pdd, s.amount, s.currency, coalesce(o.broken_promises, 0),
              round((s.amount::numeric / (10 ^ s.digits)::numeric) * w.wa + s.pdd * w.wd
                    + coalesce(o.broken_promises, 0) * w.wb, 4),
              $2::date
         from src s cross join w left join old o on o.loan_id = s.loan_id
       on conflict (tenant_id, loan_id) do update set
         customer_id = excluded.customer_id,
         customer_branch_id = excluded.customer_branch_id,
         customer_officer_id = excluded.customer_officer_id,
         bucket_since = case when collection_cases.bucket_id is not distinct from excluded.bucket_id
                             then collection_cases.bucket_since else excluded.bucket_since end,
         bucket_id = excluded.bucket_id,
         past_due_days = excluded.past_due_days,
         overdue_amount = excluded.overdue_amount,
         currency = excluded.currency,
         priority = excluded.priority,
         updated_on = excluded.updated_on
       returning 1),
     del as (
       delete from collection_cases c
        where c.tenant_id = $1 and not exists (select 1 from src s where s.loan_id = c.loan_id)
       returning 1)
     select (select count(*) from up)::int as cases, (select count(*) from moved)::int as moves,
            (select count(*) from del)::int as deleted`,
    [tenantId, businessDate, currencies, currencies.map((c) => currencyDigits(c))],
  );
  return { cases: result.cases, moves: result.moves };
}

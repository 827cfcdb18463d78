-- 0370 loan summary: three figures of every loan that the loans list shows, sorts and counts tabs
-- by, kept on the loan row itself by the database whenever the loan's installments change.
-- Why: computing them per request means reading every unpaid installment of the tenant for the
-- "overdue" count and every future installment for "maturing" (0.4-1 s on a 100,000-customer
-- tenant); stored and indexed, each tab is a range read on loans.
-- - outstanding: what the installments still ask (due - paid - waived - written off, all components);
-- - oldest_unpaid_due_date: the earliest due date with something still to pay (NULL when nothing is),
--   so at any business date d the loan is overdue when it is < d, by d - it days;
-- - maturity_date: the last installment's due date.
-- A statement-level trigger per event (a transition table cannot serve several events) recomputes
-- the figures of the loans the statement touched, from their installments, in the same transaction:
-- every writer (engine commands, the daily close's penalties, bulk loads) keeps them exact.

alter table loans
  add column outstanding bigint not null default 0,
  add column oldest_unpaid_due_date date,
  add column maturity_date date;

create function app_refresh_loan_summary() returns trigger
language plpgsql as $$
begin
  update loans l
     set outstanding = s.outstanding, oldest_unpaid_due_date = s.oldest_unpaid, maturity_date = s.maturity
    from (select k.tenant_id, k.loan_id,
                 coalesce(sum(x.amount), 0)::int8 as outstanding,
                 min(i.due_date) filter (where x.amount > 0) as oldest_unpaid,
                 max(i.due_date) as maturity
            from (select distinct tenant_id, loan_id from changed) k
            left join loan_installments i on i.tenant_id = k.tenant_id and i.loan_id = k.loan_id
            left join lateral (select i.principal_due + i.interest_due + i.fee_due + i.penalty_due
                 - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
                 - i.interest_waived - i.fee_waived - i.penalty_waived
                 - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off as amount) x on true
           group by k.tenant_id, k.loan_id) s
   where l.tenant_id = s.tenant_id and l.id = s.loan_id
     and (l.outstanding, l.oldest_unpaid_due_date, l.maturity_date) is distinct from (s.outstanding, s.oldest_unpaid, s.maturity);
  return null;
end $$;

create trigger loan_installments_summary_insert after insert on loan_installments
  referencing new table as changed for each statement execute function app_refresh_loan_summary();
create trigger loan_installments_summary_update after update on loan_installments
  referencing new table as changed for each statement execute function app_refresh_loan_summary();
create trigger loan_installments_summary_delete after delete on loan_installments
  referencing old table as changed for each statement execute function app_refresh_loan_summary();

-- Loans that already have installments.
update loans l
   set outstanding = s.outstanding, oldest_unpaid_due_date = s.oldest_unpaid, maturity_date = s.maturity
  from (select i.tenant_id, i.loan_id,
               sum(x.amount)::int8 as outstanding,
               min(i.due_date) filter (where x.amount > 0) as oldest_unpaid,
               max(i.due_date) as maturity
          from loan_installments i
          cross join lateral (select i.principal_due + i.interest_due + i.fee_due + i.penalty_due
               - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
               - i.interest_waived - i.fee_waived - i.penalty_waived
               - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off as amount) x
         group by i.tenant_id, i.loan_id) s
 where l.tenant_id = s.tenant_id and l.id = s.loan_id;

-- The loans list's tabs on active loans: "overdue" ranges over the oldest unpaid due date,
-- "maturing" over the maturity date; both hold active loans only.
create index loans_active_oldest_unpaid on loans (tenant_id, oldest_unpaid_due_date) where status = 'ACTIVE';
create index loans_active_maturity on loans (tenant_id, maturity_date) where status = 'ACTIVE';

-- A customer's collaterals (the profile's collaterals page and the delete check) by customer.
create index collaterals_customer on collaterals (tenant_id, customer_id);

-- "Closed this month": closed loans by their closing date (repaid, overpaid or written off: the engine
-- sets closed_on in every case), so the month's closings are a range read rather than a walk over
-- every loan. On the column itself: an expression such as coalesce() over columns cannot be an index
-- condition under the row-level-security policy (it is not "leakproof").
create index loans_closed_in_month on loans (tenant_id, closed_on)
  where status in ('CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF');

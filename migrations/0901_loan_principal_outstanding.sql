-- 0901 loan principal outstanding (issue 15, portfolio and risk): loans.principal_outstanding, kept
-- by the database with the other summary figures of 0370 (same statement-level triggers), and a
-- covering index of the active loans with what the portfolio figures sum and group by.
-- Why: PAR is a share of the principal outstanding (not of everything owed); the Overview and the
-- risk boards add it up over every active loan of the viewer's scope at the business date, which
-- from the installments would read a dozen rows per loan. principal_outstanding = principal due −
-- paid − written off over the loan's installments.

alter table loans add column principal_outstanding bigint not null default 0;

create or replace function app_refresh_loan_summary() returns trigger
language plpgsql as $$
begin
  update loans l
     set outstanding = s.outstanding, oldest_unpaid_due_date = s.oldest_unpaid, maturity_date = s.maturity,
         principal_outstanding = s.principal_outstanding
    from (select k.tenant_id, k.loan_id,
                 coalesce(sum(x.amount), 0)::int8 as outstanding,
                 coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)::int8 as principal_outstanding,
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
     and (l.outstanding, l.oldest_unpaid_due_date, l.maturity_date, l.principal_outstanding)
         is distinct from (s.outstanding, s.oldest_unpaid, s.maturity, s.principal_outstanding);
  return null;
end $$;

-- Loans that already have installments.
update loans l
   set principal_outstanding = s.p
  from (select i.tenant_id, i.loan_id, sum(i.principal_due - i.principal_paid - i.principal_written_off)::int8 as p
          from loan_installments i group by i.tenant_id, i.loan_id) s
 where l.tenant_id = s.tenant_id and l.id = s.loan_id and l.principal_outstanding <> s.p;

-- The active loans with what the portfolio figures need: an index-only read for any scope.
create index loans_active_portfolio on loans (tenant_id)
  include (principal_outstanding, outstanding, oldest_unpaid_due_date, product_id, currency,
           customer_branch_id, customer_officer_id, officer_id)
  where status = 'ACTIVE';

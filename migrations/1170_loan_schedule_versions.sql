-- 1170 the installments an active loan had before each rewrite of its schedule (issue 17).
-- A schedule changes after disbursement only through replaceLoanSchedule (a tranche, interest
-- recalculated on a repayment or a reversal, an approved reschedule, a re-age or re-amortisation and
-- their undo), which deletes the installment rows and writes new ones. Rebuilding the month-end
-- snapshots from history (src/lib/analytics/snapshots.ts) needs, for each past month end, the
-- installments in force at that month end's close; without this table it could only read today's.
-- One row per rewrite (not per installment: a recalculating loan is rewritten at every repayment),
-- holding only what the rebuild reads: the due dates and the dues per component as they stood just
-- before the rewrite (installment n at index n; fees and penalties include the charges applied by
-- then). `replaced_on` is the tenant's business date of the rewrite: these installments were in
-- force up to the close of the day before it. `last_seq` is the loan's highest transaction `seq`
-- at the rewrite, which tells which of the charges applied on that same day these dues contain.
-- The rewrite also replays the live transactions onto the new installments, so from then on what is
-- settled per component is no longer the sum of the transactions' own portions (those are immutable):
-- `reallocated_*` keep the difference (settled after the replay − the portions of the live repayments,
-- waivers and write-offs; credit balance after it − overpayments + refunds), in force until the next rewrite.
create table loan_schedule_versions (
  tenant_id text not null,
  loan_id uuid not null,
  version integer not null check (version > 0), -- 1 = replaced by the loan's first rewrite, 2 = by its second…
  replaced_on date not null,
  last_seq bigint not null,
  due_dates date[] not null,
  principal_due int8[] not null,
  interest_due int8[] not null,
  fee_due int8[] not null,
  penalty_due int8[] not null,
  reallocated_principal int8 not null,
  reallocated_interest int8 not null,
  reallocated_fee int8 not null,
  reallocated_penalty int8 not null,
  reallocated_credit int8 not null,
  primary key (tenant_id, loan_id, version),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  check (cardinality(due_dates) > 0
     and cardinality(principal_due) = cardinality(due_dates) and cardinality(interest_due) = cardinality(due_dates)
     and cardinality(fee_due) = cardinality(due_dates) and cardinality(penalty_due) = cardinality(due_dates))
);
select app_enable_tenant_rls('loan_schedule_versions');
create trigger loan_schedule_versions_immutable before update or delete on loan_schedule_versions
  for each row execute function app_forbid_change();

-- 1130 loan reschedule requests (issue 17): Fineract's maker-checker reschedule of an active loan.
-- Why: a lender changes the rate from an installment on, moves a due date (the later ones shift with
-- it), adds installments at the end or grants a grace on principal or interest. One user submits
-- the request, another approves it (the approval replaces the loan's schedule through the schedule
-- sync, src/lib/lending/schedule-sync.ts) or rejects it (the loan is left as it was). At most one
-- request per loan waits for a decision at a time.

create table loan_reschedule_requests (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  loan_id uuid not null,
  -- The due date of the first installment rescheduled (an installment's due date when submitted).
  reschedule_from_date date not null,
  new_interest_rate numeric(9, 6) check (new_interest_rate >= 0 and new_interest_rate <= 1000),
  adjusted_due_date date check (adjusted_due_date >= reschedule_from_date),
  extra_terms integer not null default 0 check (extra_terms between 0 and 120),
  grace_on_principal integer not null default 0 check (grace_on_principal between 0 and 120),
  grace_on_interest integer not null default 0 check (grace_on_interest between 0 and 120),
  -- Business date of the submission.
  submitted_on date not null,
  reason text check (char_length(reason) <= 500),
  status text not null default 'submitted' check (status in ('submitted', 'approved', 'rejected')),
  submitted_by text not null,
  submitted_at timestamptz not null default now(),
  decided_by text,
  decided_at timestamptz,
  -- Business date of the decision.
  decided_on date,
  decision_note text check (char_length(decision_note) <= 500),
  -- On approval: scheduled interest after minus before (minor units of the loan's currency).
  interest_change bigint,
  version integer not null default 1,
  primary key (tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  check ((status = 'submitted') = (decided_by is null))
);
create index loan_reschedule_requests_loan on loan_reschedule_requests (tenant_id, loan_id, submitted_at);
create unique index loan_reschedule_requests_one_pending on loan_reschedule_requests (tenant_id, loan_id)
  where status = 'submitted';
select app_enable_tenant_rls('loan_reschedule_requests');

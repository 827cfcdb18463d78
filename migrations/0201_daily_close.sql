-- 0201 daily close (src/lib/close): per-loan delinquency state, the history of bucket changes,
-- month-end snapshots, penalties applied by the close, and a record of every close run.
-- Why: the close of business classifies loans into their product's delinquency ranges every day;
-- analytics builds roll rates from the history and portfolio reports from the snapshots. The
-- close_runs row for a business date is written in the same transaction that advances the tenant's
-- business date, so a re-run of the same date finds it and changes nothing (idempotent).

-- Current close-of-business state of each loan, as of the tenant's business date after the close.
create table loan_delinquency (
  tenant_id text not null,
  loan_id uuid not null,
  as_of date not null,                        -- business date the values were computed at
  past_due_days integer not null default 0,   -- business date − oldest unpaid due date
  delinquent_days integer not null default 0, -- past due days − product's arrears grace (≥ 0)
  delinquent_date date,                       -- oldest unpaid due date + grace
  delinquent_amount bigint not null default 0,-- everything overdue (minor units, loan currency)
  overdue_installments integer not null default 0,
  classification text,                        -- delinquency range name, null when not delinquent
  classified_since date,
  installment_level jsonb not null default '[]'::jsonb, -- [{range, amount}] by each installment's own days
  is_matured boolean not null default false,  -- last due date has passed while still active
  matured_on date,
  primary key (tenant_id, loan_id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index loan_delinquency_class on loan_delinquency (tenant_id, classification);
select app_enable_tenant_rls('loan_delinquency');

-- One row per change of a loan's bucket (from → to) on a business date. Append-only.
create table loan_delinquency_history (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  loan_id uuid not null,
  business_date date not null,               -- the date the new classification holds from
  from_classification text,                  -- null: was not delinquent
  to_classification text,                    -- null: no longer delinquent (see reason)
  reason text not null check (reason in ('classified', 'cured', 'closed', 'written_off')),
  past_due_days integer not null,
  delinquent_days integer not null,
  delinquent_amount bigint not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index loan_delinquency_history_date on loan_delinquency_history (tenant_id, business_date);
create index loan_delinquency_history_loan on loan_delinquency_history (tenant_id, loan_id, business_date);
select app_enable_tenant_rls('loan_delinquency_history');
create trigger loan_delinquency_history_immutable before update or delete on loan_delinquency_history
  for each row execute function app_forbid_change();

-- A loan's position at each month end it was open in (written by the close of the month's last day).
create table loan_month_end_snapshots (
  tenant_id text not null,
  loan_id uuid not null,
  month_end date not null,
  status text not null,
  currency char(3) not null,
  principal_outstanding bigint not null,
  interest_outstanding bigint not null,
  fee_outstanding bigint not null,
  penalty_outstanding bigint not null,
  total_outstanding bigint not null,
  credit_balance bigint not null default 0,
  past_due_days integer not null,
  delinquent_days integer not null,
  classification text,
  principal_paid_in_month bigint not null,
  interest_paid_in_month bigint not null,
  fee_paid_in_month bigint not null,
  penalty_paid_in_month bigint not null,
  total_paid_in_month bigint not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, loan_id, month_end),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index loan_month_end_snapshots_month on loan_month_end_snapshots (tenant_id, month_end);
select app_enable_tenant_rls('loan_month_end_snapshots');

-- Penalties the close charged, one per (loan, installment, penalty code): never charged twice.
create table close_penalties (
  tenant_id text not null,
  loan_id uuid not null,
  installment_number integer not null,
  penalty_code text not null,
  business_date date not null,
  amount bigint not null check (amount > 0),
  transaction_id uuid not null,
  primary key (tenant_id, loan_id, installment_number, penalty_code),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  foreign key (tenant_id, transaction_id) references loan_transactions(tenant_id, id)
);
select app_enable_tenant_rls('close_penalties');

-- Every completed close: the day closed, the date it moved to, and what it did.
create table close_runs (
  tenant_id text not null references tenants(id),
  business_date date not null,               -- the day that was closed
  new_business_date date not null,
  started_at timestamptz not null,
  finished_at timestamptz not null default now(),
  stats jsonb not null default '{}'::jsonb,
  primary key (tenant_id, business_date)
);
select app_enable_tenant_rls('close_runs');

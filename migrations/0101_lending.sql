-- 0101 lending domain: customers, loan products, offers, applications, loans, installments,
-- transactions, the double-entry journal, collaterals, days off, delinquency bucket sets and the
-- idempotency keys of money commands. Why: the lending engine (issue 3) keeps money as bigint minor
-- units plus currency, calendar dates as date, every table tenant-scoped with row-level security,
-- posted history (transactions, journal) immutable, corrections by reversal.

-- Per-tenant lending settings: maker-checker amount threshold and the due-date rule on days off.
create table lending_settings (
  tenant_id text not null references tenants(id),
  -- Applications whose principal (minor units of the tenant currency) exceeds this need an admin
  -- approver; NULL means no limit.
  approval_admin_threshold bigint check (approval_admin_threshold >= 0),
  -- What happens to a due date on a day off: moved to the next working day, or kept.
  due_date_on_day_off text not null default 'NEXT_WORKING_DAY'
    check (due_date_on_day_off in ('NEXT_WORKING_DAY', 'SAME_DAY')),
  primary key (tenant_id)
);
select app_enable_tenant_rls('lending_settings');

-- Holidays (a date range) and recurring non-working weekdays (ISO: 1 = Monday … 7 = Sunday).
create table days_off (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  kind text not null check (kind in ('holiday', 'non_working_weekday')),
  name text not null default '',
  from_date date,
  to_date date,
  weekday smallint check (weekday between 1 and 7),
  repayments_rescheduled_to date,             -- for a holiday: due dates inside it move to this date
  primary key (tenant_id, id),
  check ((kind = 'holiday' and from_date is not null and to_date is not null and to_date >= from_date and weekday is null)
      or (kind = 'non_working_weekday' and weekday is not null and from_date is null and to_date is null))
);
create unique index days_off_weekday on days_off (tenant_id, weekday) where kind = 'non_working_weekday';
select app_enable_tenant_rls('days_off');

create table delinquency_bucket_sets (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  primary key (tenant_id, id),
  unique (tenant_id, name)
);
select app_enable_tenant_rls('delinquency_bucket_sets');

create table delinquency_ranges (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  bucket_set_id uuid not null,
  classification text not null,
  min_age_days integer not null check (min_age_days >= 0),
  max_age_days integer check (max_age_days is null or max_age_days >= min_age_days), -- NULL: open-ended
  primary key (tenant_id, id),
  unique (tenant_id, bucket_set_id, classification),
  foreign key (tenant_id, bucket_set_id) references delinquency_bucket_sets(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('delinquency_ranges');

create table customers (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  external_id text,
  first_name text not null,
  last_name text not null,
  national_id text,
  phone text,
  email text,
  date_of_birth date,
  branch_id uuid,                              -- hierarchy node (level 'branch')
  officer_id uuid,                             -- hierarchy node (level 'officer')
  segment text,
  opt_in_status text not null default 'opted_in' check (opt_in_status in ('opted_in', 'opted_out')),
  risk_class text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  version integer not null default 1,
  primary key (tenant_id, id),
  foreign key (tenant_id, branch_id) references hierarchy_nodes(tenant_id, id),
  foreign key (tenant_id, officer_id) references hierarchy_nodes(tenant_id, id)
);
create unique index customers_national_id on customers (tenant_id, national_id) where national_id is not null;
create unique index customers_external_id on customers (tenant_id, external_id) where external_id is not null;
create index customers_name on customers (tenant_id, lower(last_name), lower(first_name));
create index customers_branch on customers (tenant_id, branch_id);
create index customers_officer on customers (tenant_id, officer_id);
select app_enable_tenant_rls('customers');

create table customer_opt_in_history (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  status text not null check (status in ('opted_in', 'opted_out')),
  reason text not null,
  changed_by text,
  changed_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index customer_opt_in_history_customer on customer_opt_in_history (tenant_id, customer_id, changed_at);
select app_enable_tenant_rls('customer_opt_in_history');
create trigger customer_opt_in_history_immutable before update or delete on customer_opt_in_history
  for each row execute function app_forbid_change();

create table customer_risk_class_history (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  risk_class text,
  reason text not null default '',
  changed_by text,
  changed_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index customer_risk_class_history_customer on customer_risk_class_history (tenant_id, customer_id, changed_at);
select app_enable_tenant_rls('customer_risk_class_history');
create trigger customer_risk_class_history_immutable before update or delete on customer_risk_class_history
  for each row execute function app_forbid_change();

-- A loan product carries every convention of the schedule terms contract (src/lib/schedule), so a
-- loan's schedule is fully determined by its product plus amount, term, rate and dates.
create table loan_products (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  code text not null,
  name text not null,
  description text not null default '',
  currency char(3) not null,
  digits_after_decimal smallint not null check (digits_after_decimal between 0 and 6),
  currency_in_multiples_of integer not null default 0 check (currency_in_multiples_of >= 0),
  installment_amount_in_multiples_of integer not null default 0 check (installment_amount_in_multiples_of >= 0),
  rounding_mode text not null default 'HALF_EVEN'
    check (rounding_mode in ('HALF_EVEN', 'HALF_UP', 'HALF_DOWN', 'UP', 'DOWN', 'CEILING', 'FLOOR')),
  min_principal bigint not null check (min_principal > 0),
  max_principal bigint not null,
  default_principal bigint,
  min_repayments integer not null check (min_repayments > 0),
  max_repayments integer not null,
  default_repayments integer,
  annual_interest_rate numeric(9, 6) not null check (annual_interest_rate >= 0),  -- nominal percent per year
  repayment_every integer not null default 1 check (repayment_every > 0),
  repayment_frequency text not null check (repayment_frequency in ('DAYS', 'WEEKS', 'MONTHS')),
  schedule_type text not null default 'CUMULATIVE' check (schedule_type in ('CUMULATIVE', 'PROGRESSIVE')),
  interest_method text not null default 'DECLINING_BALANCE' check (interest_method in ('DECLINING_BALANCE', 'FLAT')),
  amortization text not null default 'EQUAL_INSTALLMENTS' check (amortization in ('EQUAL_INSTALLMENTS', 'EQUAL_PRINCIPAL')),
  interest_calculation_period text not null default 'DAILY' check (interest_calculation_period in ('DAILY', 'SAME_AS_REPAYMENT_PERIOD')),
  allow_partial_period_interest boolean not null default false,
  days_in_year text not null default 'ACTUAL' check (days_in_year in ('ACTUAL', '360', '364', '365')),
  days_in_month text not null default 'ACTUAL' check (days_in_month in ('ACTUAL', '30')),
  grace_on_principal_periods integer not null default 0 check (grace_on_principal_periods >= 0),
  grace_on_interest_payment_periods integer not null default 0 check (grace_on_interest_payment_periods >= 0),
  interest_free_periods integer not null default 0 check (interest_free_periods >= 0),
  grace_on_arrears_ageing integer not null default 0 check (grace_on_arrears_ageing >= 0),
  down_payment_percent numeric(7, 4) check (down_payment_percent > 0 and down_payment_percent < 100),
  -- Fee and penalty definitions: [{ "code", "name", "kind": "FLAT"|"PERCENT_OF_INSTALLMENT"|…,
  -- "amount" (minor units as string) or "percent", "trigger": "DISBURSEMENT"|"OVERDUE"|… }].
  fees jsonb not null default '[]'::jsonb,
  penalties jsonb not null default '[]'::jsonb,
  -- Repayment allocation strategy code of the conventions page (default Fineract's
  -- mifos-standard-strategy: penalties → fees → interest → principal, oldest installment first).
  allocation_strategy text not null default 'mifos-standard-strategy',
  delinquency_bucket_set_id uuid,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, code),
  check (max_principal >= min_principal),
  check (max_repayments >= min_repayments),
  foreign key (tenant_id, delinquency_bucket_set_id) references delinquency_bucket_sets(tenant_id, id)
);
select app_enable_tenant_rls('loan_products');

-- Offers: to_propose → pending (notified: channel, feedback, comment) → requested → disbursed;
-- or rejected, expired. See src/lib/lending/lifecycle/offer.ts.
create table offers (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  code text not null,                          -- unique code the customer quotes
  customer_id uuid not null,
  product_id uuid not null,
  currency char(3) not null,
  principal bigint not null check (principal > 0),
  number_of_repayments integer not null check (number_of_repayments > 0),
  annual_interest_rate numeric(9, 6) not null check (annual_interest_rate >= 0),
  expires_on date not null,
  status text not null default 'to_propose'
    check (status in ('to_propose', 'pending', 'requested', 'disbursed', 'rejected', 'expired')),
  notified_at timestamptz,
  notified_by text,
  notify_channel text check (notify_channel in ('Message', 'PhoneCall', 'InPerson', 'Other')),
  notify_feedback text check (notify_feedback in ('Uninterested', 'Neutral', 'Interested', 'Unknown')),
  notify_comment text,
  rejected_reason text,
  application_id uuid,
  loan_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  version integer not null default 1,
  primary key (tenant_id, id),
  unique (tenant_id, code),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id),
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id)
);
create index offers_customer on offers (tenant_id, customer_id);
create index offers_status on offers (tenant_id, status, expires_on);
select app_enable_tenant_rls('offers');

-- Loan applications: submitted → approved | rejected | withdrawn (maker-checker on approval).
create table loan_applications (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  product_id uuid not null,
  offer_id uuid,
  currency char(3) not null,
  principal bigint not null check (principal > 0),
  number_of_repayments integer not null check (number_of_repayments > 0),
  annual_interest_rate numeric(9, 6) not null check (annual_interest_rate >= 0),
  expected_disbursement_date date not null,
  status text not null default 'submitted' check (status in ('submitted', 'approved', 'rejected', 'withdrawn')),
  submitted_by text not null,
  submitted_at timestamptz not null default now(),
  decided_by text,
  decided_at timestamptz,
  decision_note text,
  form_data jsonb not null default '{}'::jsonb,
  loan_id uuid,
  version integer not null default 1,
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id),
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id),
  foreign key (tenant_id, offer_id) references offers(tenant_id, id)
);
create index loan_applications_status on loan_applications (tenant_id, status, submitted_at);
create index loan_applications_customer on loan_applications (tenant_id, customer_id);
select app_enable_tenant_rls('loan_applications');

-- Loans with Apache Fineract's lifecycle states (LoanStatus). Amounts outstanding are derived from
-- the installments; the credit balance is the overpaid amount the lender owes the customer.
create table loans (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  account_no text not null,
  customer_id uuid not null,
  product_id uuid not null,
  application_id uuid,
  offer_id uuid,
  status text not null check (status in (
    'SUBMITTED_AND_PENDING_APPROVAL', 'APPROVED', 'ACTIVE', 'CLOSED_OBLIGATIONS_MET', 'OVERPAID',
    'CLOSED_WRITTEN_OFF', 'REJECTED', 'WITHDRAWN_BY_CLIENT')),
  currency char(3) not null,
  principal bigint not null check (principal > 0),
  number_of_repayments integer not null check (number_of_repayments > 0),
  annual_interest_rate numeric(9, 6) not null check (annual_interest_rate >= 0),
  terms jsonb not null,                        -- the schedule terms (contract JSON) the schedule came from
  expected_disbursement_date date,
  submitted_on date not null,
  approved_on date,
  approved_by text,
  disbursed_on date,
  closed_on date,
  written_off_on date,
  credit_balance bigint not null default 0 check (credit_balance >= 0),
  officer_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  version integer not null default 1,
  primary key (tenant_id, id),
  unique (tenant_id, account_no),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id),
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id),
  foreign key (tenant_id, application_id) references loan_applications(tenant_id, id),
  foreign key (tenant_id, offer_id) references offers(tenant_id, id)
);
create index loans_status on loans (tenant_id, status, disbursed_on);
create index loans_customer on loans (tenant_id, customer_id);
select app_enable_tenant_rls('loans');

-- Installments: what is due per component, and how it was settled (paid, waived, written off).
-- Settled amounts are derived from the loan's transactions and rebuilt on reversal.
create table loan_installments (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  loan_id uuid not null,
  number integer not null check (number > 0),
  from_date date not null,
  due_date date not null,
  is_down_payment boolean not null default false,
  principal_due bigint not null check (principal_due >= 0),
  interest_due bigint not null check (interest_due >= 0),
  fee_due bigint not null default 0 check (fee_due >= 0),
  penalty_due bigint not null default 0 check (penalty_due >= 0),
  principal_paid bigint not null default 0,
  interest_paid bigint not null default 0,
  fee_paid bigint not null default 0,
  penalty_paid bigint not null default 0,
  interest_waived bigint not null default 0,
  fee_waived bigint not null default 0,
  penalty_waived bigint not null default 0,
  principal_written_off bigint not null default 0,
  interest_written_off bigint not null default 0,
  fee_written_off bigint not null default 0,
  penalty_written_off bigint not null default 0,
  obligations_met_on date,
  primary key (tenant_id, id),
  unique (tenant_id, loan_id, number),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  check (principal_paid + principal_written_off between 0 and principal_due),
  check (interest_paid + interest_waived + interest_written_off between 0 and interest_due),
  check (fee_paid + fee_waived + fee_written_off between 0 and fee_due),
  check (penalty_paid + penalty_waived + penalty_written_off between 0 and penalty_due),
  check (principal_paid >= 0 and interest_paid >= 0 and fee_paid >= 0 and penalty_paid >= 0
     and interest_waived >= 0 and fee_waived >= 0 and penalty_waived >= 0
     and principal_written_off >= 0 and interest_written_off >= 0 and fee_written_off >= 0 and penalty_written_off >= 0)
);
create index loan_installments_due on loan_installments (tenant_id, due_date) where obligations_met_on is null;
select app_enable_tenant_rls('loan_installments');

-- The closed set of loan transaction kinds (Fineract LoanTransactionType). Doc per member in
-- src/lib/lending/transaction-types.ts.
create type loan_transaction_type as enum (
  'DISBURSEMENT',      -- funds transferred to the borrower; principal becomes receivable
  'REPAYMENT',         -- money received and allocated over the installments
  'WAIVE_INTEREST',    -- interest forgiven; not a cash movement
  'WAIVE_CHARGES',     -- fees and penalties forgiven; not a cash movement
  'WRITE_OFF',         -- everything outstanding moved to write-off expense; loan closed
  'ACCRUAL',           -- income recognised before it is received (reserved for accrual accounting)
  'FEE_APPLIED',       -- a fee charged onto an installment
  'PENALTY_APPLIED',   -- a penalty charged onto an installment (daily close)
  'REVERSAL'           -- undoes the transaction it names in reverses_id
);

-- Append-only: corrections are REVERSAL rows (reverses_id); the reversed_by link is derived by the
-- view loan_transactions_view.
create table loan_transactions (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  seq bigint generated always as identity,     -- replay order for transactions on the same date
  loan_id uuid not null,
  type loan_transaction_type not null,
  transaction_date date not null,
  currency char(3) not null,
  amount bigint not null check (amount >= 0),
  principal_portion bigint not null default 0,
  interest_portion bigint not null default 0,
  fee_portion bigint not null default 0,
  penalty_portion bigint not null default 0,
  overpayment_portion bigint not null default 0,
  installment_number integer,                  -- for FEE_APPLIED / PENALTY_APPLIED
  reverses_id uuid,
  note text,
  created_by text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  foreign key (tenant_id, reverses_id) references loan_transactions(tenant_id, id),
  check ((type = 'REVERSAL') = (reverses_id is not null))
);
-- A transaction can be reversed once.
create unique index loan_transactions_reverses on loan_transactions (tenant_id, reverses_id) where reverses_id is not null;
create index loan_transactions_loan on loan_transactions (tenant_id, loan_id, transaction_date, seq);
select app_enable_tenant_rls('loan_transactions');
create trigger loan_transactions_immutable before update or delete on loan_transactions
  for each row execute function app_forbid_change();

create view loan_transactions_view with (security_invoker = true) as
  select t.*, r.id as reversed_by_id, (r.id is not null) as is_reversed
  from loan_transactions t
  left join loan_transactions r on r.tenant_id = t.tenant_id and r.reverses_id = t.id;

create table collaterals (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  type text not null,                          -- 'vehicle', 'real_estate', 'deposit', 'guarantee', ...
  description text not null default '',
  currency char(3) not null,
  value bigint not null check (value >= 0),
  valuation_date date not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
select app_enable_tenant_rls('collaterals');

create table loan_collaterals (
  tenant_id text not null,
  loan_id uuid not null,
  collateral_id uuid not null,
  primary key (tenant_id, loan_id, collateral_id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  foreign key (tenant_id, collateral_id) references collaterals(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('loan_collaterals');

-- Chart of accounts: global, fixed. Asset and expense accounts grow on the debit side.
create table ledger_accounts (
  code text primary key,
  name text not null,
  kind text not null check (kind in ('asset', 'liability', 'income', 'expense'))
);
insert into ledger_accounts (code, name, kind) values
  ('LOAN_PORTFOLIO', 'Loan portfolio (principal receivable)', 'asset'),
  ('INTEREST_RECEIVABLE', 'Interest receivable', 'asset'),
  ('FEE_RECEIVABLE', 'Fee receivable', 'asset'),
  ('PENALTY_RECEIVABLE', 'Penalty receivable', 'asset'),
  ('FUND_SOURCE', 'Fund source / cash', 'asset'),
  ('INTEREST_INCOME', 'Interest income', 'income'),
  ('FEE_INCOME', 'Fee income', 'income'),
  ('PENALTY_INCOME', 'Penalty income', 'income'),
  ('WRITE_OFF_EXPENSE', 'Losses written off', 'expense'),
  ('OVERPAYMENT_LIABILITY', 'Overpayment liability (credit balances)', 'liability');

create table journal_entries (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  entry_date date not null,                    -- value date (business date of the command)
  currency char(3) not null,
  loan_id uuid,
  transaction_id uuid,
  description text not null,
  posted_by text,
  posted_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id),
  foreign key (tenant_id, transaction_id) references loan_transactions(tenant_id, id)
);
create index journal_entries_loan on journal_entries (tenant_id, loan_id);
select app_enable_tenant_rls('journal_entries');
create trigger journal_entries_immutable before update or delete on journal_entries
  for each row execute function app_forbid_change();

create table journal_lines (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  entry_id uuid not null,
  account_code text not null references ledger_accounts(code),
  currency char(3) not null,
  loan_id uuid,
  debit bigint not null default 0 check (debit >= 0),
  credit bigint not null default 0 check (credit >= 0),
  primary key (tenant_id, id),
  foreign key (tenant_id, entry_id) references journal_entries(tenant_id, id),
  check ((debit = 0) <> (credit = 0))          -- exactly one side, never both, never neither
);
create index journal_lines_entry on journal_lines (tenant_id, entry_id);
create index journal_lines_loan on journal_lines (tenant_id, loan_id, account_code);
select app_enable_tenant_rls('journal_lines');
create trigger journal_lines_immutable before update or delete on journal_lines
  for each row execute function app_forbid_change();

-- Every journal entry balances at commit: checked once per entry by a deferred constraint trigger,
-- so the lines can be inserted one by one inside the posting transaction.
create function journal_entry_must_balance() returns trigger
language plpgsql as $$
declare
  d bigint; c bigint; n integer; bad integer;
begin
  select coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*),
         count(*) filter (where currency <> (select e.currency from journal_entries e where e.tenant_id = new.tenant_id and e.id = new.id))
    into d, c, n, bad
    from journal_lines where tenant_id = new.tenant_id and entry_id = new.id;
  if n < 2 or d <> c or bad > 0 then
    raise exception 'journal entry % does not balance (debits %, credits %, lines %, currency mismatches %)', new.id, d, c, n, bad
      using errcode = 'check_violation';
  end if;
  return null;
end $$;
create constraint trigger journal_entries_balanced after insert on journal_entries
  deferrable initially deferred for each row execute function journal_entry_must_balance();

-- Idempotency keys of money commands (Stripe / IETF Idempotency-Key): scoped to tenant and user,
-- kept at least 24 hours (delete_expired_idempotency_keys).
create table idempotency_keys (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  user_id text not null,
  key text not null check (length(key) between 1 and 255),
  request_hash text not null,                  -- sha-256 of method, path and canonical body
  status text not null default 'in_flight' check (status in ('in_flight', 'completed')),
  response_status integer,
  response_body text,                          -- the exact JSON text answered the first time
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (tenant_id, id),
  unique (tenant_id, user_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
select app_enable_tenant_rls('idempotency_keys');

-- Removes keys older than the retention (never below 24 hours); returns how many went. Runs as the
-- owner (the job scheduler calls it per tenant through db.tenant, which RLS limits to that tenant).
create function delete_expired_idempotency_keys(retention interval default interval '24 hours') returns integer
language plpgsql as $$
declare n integer;
begin
  if retention < interval '24 hours' then retention := interval '24 hours'; end if;
  delete from idempotency_keys where created_at < now() - retention;
  get diagnostics n = row_count;
  return n;
end $$;

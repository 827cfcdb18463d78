-- 1140 re-age and re-amortisation (issue 17; Fineract REAGE / REAMORTIZE on progressive loans with the
-- advanced payment allocation). A re-age moves a loan's unpaid principal into new installments; a
-- re-amortisation spreads the unpaid principal of past-due installments over the remaining ones.
-- loan_schedule_changes keeps what each such transaction was made with (Fineract's
-- m_loan_reage_parameter) and the installment dues it replaced, so an undo restores them exactly.
alter type loan_transaction_type add value if not exists 'REAGE';
alter type loan_transaction_type add value if not exists 'REAMORTIZE';

create table loan_schedule_changes (
  tenant_id text not null,
  id uuid not null,                      -- the REAGE / REAMORTIZE transaction
  loan_id uuid not null,
  frequency_type text check (frequency_type in ('DAYS', 'WEEKS', 'MONTHS', 'YEARS')), -- re-age only
  frequency_number integer check (frequency_number > 0),
  start_date date,
  number_of_installments integer check (number_of_installments > 0),
  -- [{number, fromDate, dueDate, isDownPayment, principal, interest, fees, penalties}] before the change
  -- (amounts as decimal strings of minor units; fees/penalties without the charges applied later)
  previous_schedule jsonb not null,
  -- due dates of the installments a re-age created (re-amortisation leaves them out of its spread)
  created_due_dates jsonb not null default '[]',
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, id) references loan_transactions(tenant_id, id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index loan_schedule_changes_loan on loan_schedule_changes (tenant_id, loan_id);
select app_enable_tenant_rls('loan_schedule_changes');
create trigger loan_schedule_changes_immutable before update or delete on loan_schedule_changes
  for each row execute function app_forbid_change();

-- 1060 days off per branch, the four Fineract rules, and holidays that can be edited and applied.
-- Why: issue 16 (admin › data › days off). A branch's calendar is the tenant-wide days off plus the
-- branch's own (NULL branch_id = tenant-wide); a loan follows its customer's branch
-- (loans.customer_branch_id). A holiday keeps a revision for optimistic concurrency and the moment it
-- was applied to existing loans (NULL = pending, as Fineract's "pending activation" holiday).
-- The rule for due dates on days off gets Fineract's four RepaymentRescheduleType values, which the
-- schedule engine (src/lib/schedule/due-dates.ts adjustDueDate) already implements.

alter table days_off
  add column branch_id uuid,
  add column revision integer not null default 1,
  add column applied_at timestamptz,
  add column created_at timestamptz not null default now(),
  add column updated_at timestamptz not null default now(),
  add constraint days_off_branch_fk foreign key (tenant_id, branch_id) references hierarchy_nodes(tenant_id, id),
  add constraint days_off_name_length check (char_length(name) <= 200);

-- A weekday is off once tenant-wide and once per branch at most.
drop index days_off_weekday;
create unique index days_off_weekday_tenant on days_off (tenant_id, weekday)
  where kind = 'non_working_weekday' and branch_id is null;
create unique index days_off_weekday_branch on days_off (tenant_id, branch_id, weekday)
  where kind = 'non_working_weekday' and branch_id is not null;
-- The same holiday (name and dates) once per place: importing a file twice adds nothing the second time.
create unique index days_off_holiday_once on days_off
  (tenant_id, coalesce(branch_id, '00000000-0000-0000-0000-000000000000'::uuid), from_date, to_date, name)
  where kind = 'holiday';
create index days_off_branch on days_off (tenant_id, branch_id);

alter table lending_settings drop constraint lending_settings_due_date_on_day_off_check;
alter table lending_settings add constraint lending_settings_due_date_on_day_off_check
  check (due_date_on_day_off in ('SAME_DAY', 'NEXT_WORKING_DAY', 'NEXT_REPAYMENT_DAY', 'PREVIOUS_WORKING_DAY'));

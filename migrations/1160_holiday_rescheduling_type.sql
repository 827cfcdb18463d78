-- 1160 a holiday's rescheduling type: to a specified date, to the next repayment date, or the working-day rule.
-- Why: Fineract's holidays carry a `reschedulingType` (RescheduleType: 2 = reschedule to a specified
-- date, which needs `repaymentsRescheduledTo`; 1 = reschedule to the next repayment date, which has
-- none: a due date inside the holiday moves to the loan's next repayment date and the following dates
-- continue from there). The schedule engine already computes type 1 (src/lib/schedule/due-dates.ts,
-- `rescheduleToNextRepaymentDate`), but days_off had no column for it, so a lender could not use it.
-- This product also keeps holidays without a date that follow the tenant's working-day rule
-- (lending_settings.due_date_on_day_off), a third type Fineract does not have: existing rows keep
-- their behaviour (a date = SPECIFIED_DATE, none = WORKING_DAY_RULE). Non-working weekdays follow the
-- rule too, so they carry WORKING_DAY_RULE (the default), and writers that predate the column
-- (the simulator's holidays without a date) stay valid.

alter table days_off
  add column rescheduling_type text not null default 'WORKING_DAY_RULE';

update days_off set rescheduling_type = 'SPECIFIED_DATE' where repayments_rescheduled_to is not null;

alter table days_off
  add constraint days_off_rescheduling_type_check
    check (rescheduling_type in ('WORKING_DAY_RULE', 'SPECIFIED_DATE', 'NEXT_REPAYMENT_DATE')),
  -- A specified date needs its date; the other two types must not have one.
  add constraint days_off_rescheduling_type_date
    check ((rescheduling_type = 'SPECIFIED_DATE') = (repayments_rescheduled_to is not null)),
  -- Only a holiday chooses how its due dates move; a non-working weekday follows the rule.
  add constraint days_off_rescheduling_type_kind
    check (kind = 'holiday' or rescheduling_type = 'WORKING_DAY_RULE');

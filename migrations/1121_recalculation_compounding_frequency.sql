-- 1121 compounding and rest frequencies of interest recalculation (issue 17): cumulative products now
-- recalculate with DAILY/WEEKLY/MONTHLY rests and compound interest and/or fees
-- (src/lib/schedule/recalculation-cumulative.ts), so a product says how often, as Fineract's product does
-- (recalculationRestFrequencyInterval, recalculationCompoundingFrequencyType/Interval).
--   recalculation_rest_interval           every how many days/weeks/months the rest falls (1 = every one)
--   recalculation_compounding_frequency   when unpaid interest/fees join the interest-bearing balance
--   recalculation_compounding_interval    every how many of those
-- Rest and compounding calendars recur from the loan's disbursement date. Defaults keep every existing
-- product's schedules exactly: interval 1, compounding on the due dates (the only one before).
alter table loan_products
  add column recalculation_rest_interval integer not null default 1
    check (recalculation_rest_interval between 1 and 366),
  add column recalculation_compounding_frequency text not null default 'SAME_AS_REPAYMENT_PERIOD'
    check (recalculation_compounding_frequency in ('SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY')),
  add column recalculation_compounding_interval integer not null default 1
    check (recalculation_compounding_interval between 1 and 366);

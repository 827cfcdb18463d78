-- 1120 interest recalculation (issue 17): a loan product may recalculate interest on the principal
-- actually outstanding, as Fineract's "interest recalculation enabled" products do. With it on, every
-- repayment (and its reversal) recomputes the loan's future installments through the schedule engine
-- (src/lib/schedule/recalculation.ts): an early payment lowers later interest, a late one raises it,
-- and a pre-closure amount can be quoted for any date.
--   recalculation_rest_frequency       how overdue principal keeps bearing interest (DAILY, SAME_AS_REPAYMENT_PERIOD, WEEKLY, MONTHLY)
--   recalculation_compounding          NONE, INTEREST, FEE, INTEREST_AND_FEE
--   recalculation_reschedule_strategy  what an early payment changes (ADJUST_LAST_UNPAID_PERIOD for progressive schedules,
--                                      REDUCE_EMI_AMOUNT, REDUCE_NUMBER_OF_INSTALLMENTS, RESCHEDULE_NEXT_REPAYMENTS)
--   pre_closure_strategy               interest of a pay-off up to its date, or up to the end of its period
-- Off by default: every existing product and loan keeps its schedule exactly.
alter table loan_products
  add column interest_recalculation boolean not null default false,
  add column recalculation_rest_frequency text not null default 'DAILY'
    check (recalculation_rest_frequency in ('SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY')),
  add column recalculation_compounding text not null default 'NONE'
    check (recalculation_compounding in ('NONE', 'INTEREST', 'FEE', 'INTEREST_AND_FEE')),
  add column recalculation_reschedule_strategy text not null default 'ADJUST_LAST_UNPAID_PERIOD'
    check (recalculation_reschedule_strategy in
      ('ADJUST_LAST_UNPAID_PERIOD', 'REDUCE_EMI_AMOUNT', 'REDUCE_NUMBER_OF_INSTALLMENTS', 'RESCHEDULE_NEXT_REPAYMENTS')),
  add column pre_closure_strategy text not null default 'TILL_PRE_CLOSURE_DATE'
    check (pre_closure_strategy in ('TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'));

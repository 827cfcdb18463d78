-- 0350 list count indexes (brief K): the tab counts of the loans and payments lists read unpaid
-- installments, and "disbursed this month" reads loans by disbursement date. Why each:
-- - loans "overdue" and the payments list only ever look at installments with something still to pay
--   (obligations_met_on is null and outstanding > 0); a partial index with exactly that predicate
--   (the same expression as the list definitions, so the planner proves it applies) holds those rows
--   only, by loan (overdue: a merge with the active loans) and by due date (payments: late / expected
--   read in due-date order and stop at the count cap);
-- - "disbursed this month" has no status in its rule, so loans_status (status first) cannot range
--   over the dates: a (tenant_id, disbursed_on) index can.
create index loan_installments_unpaid_loan on loan_installments (tenant_id, loan_id, due_date)
  where obligations_met_on is null and (principal_due + interest_due + fee_due + penalty_due
    - principal_paid - interest_paid - fee_paid - penalty_paid
    - interest_waived - fee_waived - penalty_waived
    - principal_written_off - interest_written_off - fee_written_off - penalty_written_off) > 0;
create index loan_installments_unpaid_due on loan_installments (tenant_id, due_date, loan_id)
  where obligations_met_on is null and (principal_due + interest_due + fee_due + penalty_due
    - principal_paid - interest_paid - fee_paid - penalty_paid
    - interest_waived - fee_waived - penalty_waived
    - principal_written_off - interest_written_off - fee_written_off - penalty_written_off) > 0;
create index loans_disbursed_on on loans (tenant_id, disbursed_on);
-- Customers "optout" (about one in twenty): the opted-out customers alone, in the list's name order,
-- so the tab's count reads a small index and its first page reads it in order.
create index customers_opted_out on customers (tenant_id, lower(last_name || ' ' || first_name), id) where opt_in_status = 'opted_out';

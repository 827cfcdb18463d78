/** Outstanding of an installment row, all components (SQL fragment over the alias `i`). */
export const INSTALLMENT_OUTSTANDING_SQL = `(i.principal_due - i.principal_paid - i.principal_written_off
  + i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off
  + i.fee_due - i.fee_paid - i.fee_waived - i.fee_written_off
  + i.penalty_due - i.penalty_paid - i.penalty_waived - i.penalty_written_off)`;

/**
 * The closed set of loan transaction kinds (Fineract LoanTransactionType), mirrored by the Postgres
 * enum loan_transaction_type. Posted transactions are never edited; corrections are REVERSAL rows.
 */
export const LOAN_TRANSACTION_TYPES = {
  /** Funds transferred to the borrower ("transfer funds"); the principal becomes receivable. */
  DISBURSEMENT: 'DISBURSEMENT',
  /** Money received from the borrower, allocated over the installments by the product's strategy; any excess becomes a credit balance. */
  REPAYMENT: 'REPAYMENT',
  /** Interest forgiven by the lender (no cash moves); reduces interest receivable and interest income. */
  WAIVE_INTEREST: 'WAIVE_INTEREST',
  /** Fees and penalties forgiven by the lender (no cash moves). */
  WAIVE_CHARGES: 'WAIVE_CHARGES',
  /** Everything still owed is moved to write-off expense and the loan closes as written off. */
  WRITE_OFF: 'WRITE_OFF',
  /** Income recognised before it is received. Reserved: this ledger recognises scheduled interest at disbursement. */
  ACCRUAL: 'ACCRUAL',
  /** A fee charged onto one installment (installment_number says which). */
  FEE_APPLIED: 'FEE_APPLIED',
  /** A penalty charged onto one installment, typically by the daily close for lateness. */
  PENALTY_APPLIED: 'PENALTY_APPLIED',
  /** Undoes the transaction named by reverses_id; its journal entry mirrors the original one. */
  REVERSAL: 'REVERSAL',
  /** Pays (part of) an overpaid loan's credit balance back to the borrower; the loan closes when none is left. */
  CREDIT_BALANCE_REFUND: 'CREDIT_BALANCE_REFUND',
  /** Re-age: the unpaid principal moves into new installments (loan_schedule_changes keeps the request); no money moves. Undone by its own command. */
  REAGE: 'REAGE',
  /** Re-amortisation: the unpaid principal of past-due installments is spread over the future ones; no money moves. Undone by its own command. */
  REAMORTIZE: 'REAMORTIZE',
  /** Fees due at disbursement, collected out of the disbursed funds (no installment involved). */
  REPAYMENT_AT_DISBURSEMENT: 'REPAYMENT_AT_DISBURSEMENT',
} as const;

export type LoanTransactionType = keyof typeof LOAN_TRANSACTION_TYPES;

/** Kinds a user may reverse (disbursement is undone by other means; reversals are not reversed). */
export const REVERSIBLE_TYPES: readonly LoanTransactionType[] = [
  'REPAYMENT',
  'WAIVE_INTEREST',
  'WAIVE_CHARGES',
  'WRITE_OFF',
  'FEE_APPLIED',
  'PENALTY_APPLIED',
  'CREDIT_BALANCE_REFUND',
];

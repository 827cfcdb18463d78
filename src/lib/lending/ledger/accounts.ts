/** The chart of accounts (table ledger_accounts, migration 0101). Asset and expense accounts grow on the debit side. */
export const ACCOUNTS = {
  LOAN_PORTFOLIO: 'LOAN_PORTFOLIO',
  INTEREST_RECEIVABLE: 'INTEREST_RECEIVABLE',
  FEE_RECEIVABLE: 'FEE_RECEIVABLE',
  PENALTY_RECEIVABLE: 'PENALTY_RECEIVABLE',
  FUND_SOURCE: 'FUND_SOURCE',
  INTEREST_INCOME: 'INTEREST_INCOME',
  FEE_INCOME: 'FEE_INCOME',
  PENALTY_INCOME: 'PENALTY_INCOME',
  WRITE_OFF_EXPENSE: 'WRITE_OFF_EXPENSE',
  OVERPAYMENT_LIABILITY: 'OVERPAYMENT_LIABILITY',
} as const;
export type AccountCode = keyof typeof ACCOUNTS;

/** The receivable account of each loan component, and the credit-balance liability. */
export const COMPONENT_ACCOUNT = {
  principal: 'LOAN_PORTFOLIO',
  interest: 'INTEREST_RECEIVABLE',
  fees: 'FEE_RECEIVABLE',
  penalties: 'PENALTY_RECEIVABLE',
} as const satisfies Record<string, AccountCode>;

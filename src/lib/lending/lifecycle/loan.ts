import { dryRunMachine, transitionMachine, type DryRunEntry, type Machine, type Refusal } from './machine.ts';

/** Apache Fineract's loan states (LoanStatus), the subset a back office uses. */
export const LOAN_STATUSES = [
  'SUBMITTED_AND_PENDING_APPROVAL',
  'APPROVED',
  'ACTIVE',
  'CLOSED_OBLIGATIONS_MET',
  'OVERPAID',
  'CLOSED_WRITTEN_OFF',
  'REJECTED',
  'WITHDRAWN_BY_CLIENT',
] as const;
export type LoanStatus = (typeof LOAN_STATUSES)[number];

export const LOAN_ACTIONS = [
  'approve',
  'reject',
  'withdraw',
  'undoApproval',
  'disburse',
  'repay',
  'waiveInterest',
  'waiveCharges',
  'applyCharge',
  'writeOff',
  'reverseTransaction',
  'refundCredit',
  'reAge',
  'reAmortize',
  'reschedule',
] as const;
export type LoanAction = (typeof LOAN_ACTIONS)[number];

/** What the guards need to know besides the state. Amounts in minor units. */
export type LoanContext = {
  /** Everything still owed (principal + interest + fees + penalties). */
  outstanding: bigint;
  interestOutstanding: bigint;
  chargesOutstanding: bigint;
  /** Outstanding after the command, for commands that change it (repay, reversal). */
  outstandingAfter?: bigint;
  /** Credit balance after the command (overpayment). */
  creditBalanceAfter?: bigint;
  /** Non-reversed transactions other than the disbursement exist. */
  hasReversibleTransactions: boolean;
  /** Overpaid money the lender holds for the borrower (minor units). */
  creditBalance?: bigint;
};

const refuse = (code: string, message: string): Refusal => ({ code, message, kind: 'CONFLICT' });

/** After money moves, the state follows the balances: credit → OVERPAID, nothing owed → closed. */
function settledState(context: LoanContext): LoanStatus {
  const outstanding = context.outstandingAfter ?? context.outstanding;
  if ((context.creditBalanceAfter ?? 0n) > 0n) return 'OVERPAID';
  return outstanding === 0n ? 'CLOSED_OBLIGATIONS_MET' : 'ACTIVE';
}

export const loanMachine: Machine<LoanStatus, LoanAction, LoanContext> = {
  name: 'loan',
  states: LOAN_STATUSES,
  actions: {
    approve: { from: ['SUBMITTED_AND_PENDING_APPROVAL'], to: 'APPROVED' },
    reject: { from: ['SUBMITTED_AND_PENDING_APPROVAL'], to: 'REJECTED' },
    withdraw: { from: ['SUBMITTED_AND_PENDING_APPROVAL'], to: 'WITHDRAWN_BY_CLIENT' },
    undoApproval: { from: ['APPROVED'], to: 'SUBMITTED_AND_PENDING_APPROVAL' },
    disburse: { from: ['APPROVED'], to: 'ACTIVE' },
    repay: {
      from: ['ACTIVE'],
      to: settledState,
      guard: (c) => (c.outstanding > 0n ? null : refuse('nothing_outstanding', 'Nothing is outstanding on this loan')),
    },
    waiveInterest: {
      from: ['ACTIVE'],
      to: settledState,
      guard: (c) =>
        c.interestOutstanding > 0n
          ? null
          : refuse('no_interest_outstanding', 'No interest is outstanding on this loan'),
    },
    waiveCharges: {
      from: ['ACTIVE'],
      to: settledState,
      guard: (c) =>
        c.chargesOutstanding > 0n
          ? null
          : refuse('no_charges_outstanding', 'No fees or penalties are outstanding on this loan'),
    },
    applyCharge: { from: ['ACTIVE'], to: 'ACTIVE' },
    writeOff: {
      from: ['ACTIVE'],
      to: 'CLOSED_WRITTEN_OFF',
      guard: (c) => (c.outstanding > 0n ? null : refuse('nothing_outstanding', 'Nothing is outstanding on this loan')),
    },
    refundCredit: {
      from: ['OVERPAID'],
      to: settledState,
      guard: (c) =>
        (c.creditBalance ?? 0n) > 0n ? null : refuse('no_credit_balance', 'This loan has no credit balance to refund'),
    },
    reAge: {
      from: ['ACTIVE'],
      to: 'ACTIVE',
      guard: (c) => (c.outstanding > 0n ? null : refuse('nothing_outstanding', 'Nothing is outstanding on this loan')),
    },
    reAmortize: {
      from: ['ACTIVE'],
      to: 'ACTIVE',
      guard: (c) => (c.outstanding > 0n ? null : refuse('nothing_outstanding', 'Nothing is outstanding on this loan')),
    },
    reverseTransaction: {
      from: ['ACTIVE', 'CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF'],
      to: settledState,
      guard: (c) =>
        c.hasReversibleTransactions
          ? null
          : refuse('nothing_to_reverse', 'This loan has no transaction that can be reversed'),
    },
    // A reschedule request (submitted, then approved by another user) on a loan that still owes money.
    reschedule: {
      from: ['ACTIVE'],
      to: 'ACTIVE',
      guard: (c) => (c.outstanding > 0n ? null : refuse('nothing_outstanding', 'Nothing is outstanding on this loan')),
    },
  },
};

export function dryRunLoan(state: LoanStatus, context: LoanContext): DryRunEntry<LoanStatus, LoanAction>[] {
  return dryRunMachine(loanMachine, state, context);
}

export function transitionLoan(state: LoanStatus, action: LoanAction, context: LoanContext): LoanStatus {
  return transitionMachine(loanMachine, state, action, context);
}

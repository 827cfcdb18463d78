import type { Tx } from '#lib/db/index.ts';
import {
  currencyCode,
  fromMinor,
  MAX_AMOUNT_MINOR,
  type Money,
  parseMoney,
  toDecimalString,
} from '#lib/money/money.ts';
import { validationError } from '#lib/errors/messages.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { recordAudit } from '#lib/audit/record-audit.ts';
import type { Actor } from '../actor.ts';
import { loadInstallments, loanOutstanding, type InstallmentRow } from '../installments.ts';
import { loadTransactions, lockLoan, type LoanRow, type TransactionRow } from '../loans.ts';
import { productOf, type ProductRow } from '../products.ts';
import { assertInScope } from '#lib/auth/data-permissions.ts';
import type { LoanStatus } from '../lifecycle/loan.ts';
import type { LoanTransactionType } from '../transaction-types.ts';
import { COMPONENT_ACCOUNT, type AccountCode } from '../ledger/accounts.ts';
import { loanLedgerBalances, postJournalEntry } from '../ledger/post-entry.ts';

/** Everything a money command on one loan needs, read under the loan's row lock. */
export type LoanCommandState = {
  loan: LoanRow;
  product: ProductRow;
  installments: InstallmentRow[];
  transactions: TransactionRow[];
  today: string;
};

/** Loads the loan through the actor's data permissions (another branch's loan is not found), then locks it. */
export async function openLoanForCommand(tx: Tx, actor: Actor, loanId: string): Promise<LoanCommandState> {
  await assertInScope(tx, actor, 'loan', loanId);
  const loan = await lockLoan(tx, loanId);
  // Sequential: a transaction is one connection, and pg refuses overlapping queries on it.
  const product = await productOf(tx, loan); // the version the loan was made with
  const installments = await loadInstallments(tx, loan.id);
  const transactions = await loadTransactions(tx, loan.id);
  const today = await businessDate(tx, actor.tenantId);
  return { loan, product, installments, transactions, today };
}

/**
 * A positive amount in `currency` given as a decimal string ("10.00") or minor units (bigint), through
 * the one money parser: the currency's decimals, greater than 0, at most MAX_AMOUNT_MINOR (400 naming the field).
 */
export function positiveAmount(value: string | bigint, currency: string, field = 'amount'): Money {
  if (typeof value !== 'bigint') return parseMoney(value, currency, field, {});
  const money = fromMinor(value, currency);
  if (value <= 0n) throw validationError(field, 'money.mustBePositive');
  if (value > MAX_AMOUNT_MINOR)
    throw validationError(field, 'money.tooLarge', { max: toDecimalString({ ...money, minor: MAX_AMOUNT_MINOR }) });
  return money;
}

/**
 * The command's value date: defaults to the business date, never after it, never before `notBefore`
 * (e.g. the disbursement or the last transaction).
 */
export function commandDate(
  value: string | undefined | null,
  today: string,
  notBefore: string | null,
  field = 'date',
): string {
  const result = parseDateInput(value ?? today, { max: today, maxIsBusinessDate: true, min: notBefore });
  if (!result.ok) throw validationError(field, result.problem.key, result.problem.params);
  return result.date;
}

/** Latest date among the live transactions (a new one may not be dated before it). */
export function lastTransactionDate(transactions: TransactionRow[]): string | null {
  let last: string | null = null;
  for (const t of transactions)
    if (!t.is_reversed && t.type !== 'REVERSAL' && (!last || t.transaction_date > last)) last = t.transaction_date;
  return last;
}

export type NewTransaction = {
  type: LoanTransactionType;
  date: string;
  amount: bigint;
  principal?: bigint;
  interest?: bigint;
  fees?: bigint;
  penalties?: bigint;
  overpayment?: bigint;
  installmentNumber?: number | null;
  reversesId?: string | null;
  note?: string | null;
};

export async function insertTransaction(
  tx: Tx,
  actor: Actor,
  loan: LoanRow,
  t: NewTransaction,
): Promise<TransactionRow> {
  const rows = await tx.query<TransactionRow>(
    `insert into loan_transactions (tenant_id, loan_id, type, transaction_date, currency, amount, principal_portion, interest_portion,
       fee_portion, penalty_portion, overpayment_portion, installment_number, reverses_id, note, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     returning *, null::uuid as reversed_by_id, false as is_reversed`,
    [
      actor.tenantId,
      loan.id,
      t.type,
      t.date,
      loan.currency,
      t.amount,
      t.principal ?? 0n,
      t.interest ?? 0n,
      t.fees ?? 0n,
      t.penalties ?? 0n,
      t.overpayment ?? 0n,
      t.installmentNumber ?? null,
      t.reversesId ?? null,
      t.note ?? null,
      actor.userId,
    ],
  );
  return rows[0];
}

export type LoanPatch = Partial<
  Pick<
    LoanRow,
    | 'status'
    | 'credit_balance'
    | 'closed_on'
    | 'written_off_on'
    | 'disbursed_on'
    | 'approved_on'
    | 'approved_by'
    | 'terms'
  >
>;

/** Updates the loan and bumps its version (optimistic readers compare it). */
export async function updateLoan(tx: Tx, loan: LoanRow, patch: LoanPatch): Promise<LoanRow> {
  const next = { ...loan, ...patch };
  const rows = await tx.query<LoanRow>(
    `update loans set status = $2, credit_balance = $3, closed_on = $4, written_off_on = $5, disbursed_on = $6, approved_on = $7,
       approved_by = $8, terms = $9::jsonb, version = version + 1, updated_at = now()
     where id = $1 returning *`,
    [
      loan.id,
      next.status,
      next.credit_balance,
      next.closed_on,
      next.written_off_on,
      next.disbursed_on,
      next.approved_on,
      next.approved_by,
      JSON.stringify(next.terms),
    ],
  );
  return { ...rows[0], currency: currencyCode(rows[0].currency) };
}

/** closed_on follows the state: set when the loan closes (or is overpaid), cleared when it reopens. */
export function closedOnFor(status: LoanStatus, current: string | null, date: string): string | null {
  if (status === 'CLOSED_OBLIGATIONS_MET' || status === 'OVERPAID' || status === 'CLOSED_WRITTEN_OFF')
    return current ?? date;
  return null;
}

/** A short, comparable picture of the loan for the audit trail's before/after. */
export function auditSnapshot(loan: LoanRow, installments: InstallmentRow[]) {
  const o = loanOutstanding(installments);
  return {
    status: loan.status,
    version: loan.version,
    creditBalance: loan.credit_balance,
    outstanding: { principal: o.principal, interest: o.interest, fees: o.fees, penalties: o.penalties },
  };
}

export async function auditSuccess(
  tx: Tx,
  actor: Actor,
  action: string,
  objectType: string,
  objectId: string,
  before: unknown,
  after: unknown,
): Promise<void> {
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action,
    objectType,
    objectId,
    before,
    after,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}

/**
 * Brings the loan's ledger accounts in line with its installments and credit balance: posts one
 * entry moving any difference between the receivable accounts and the overpayment liability. Used
 * after a reversal replays history (a later payment may now settle different components). The
 * differences always net to zero; anything else is a bug and aborts the command.
 */
export async function reconcileLoanLedger(
  tx: Tx,
  actor: Actor,
  loan: LoanRow,
  installments: InstallmentRow[],
  date: string,
  transactionId: string | null,
  description = 'Reallocation after reversal',
): Promise<void> {
  const ledger = await loanLedgerBalances(tx, loan.id);
  const state = loanOutstanding(installments);
  const lines: { account: AccountCode; debit?: bigint; credit?: bigint }[] = [];
  for (const [component, account] of Object.entries(COMPONENT_ACCOUNT) as [
    keyof typeof COMPONENT_ACCOUNT,
    AccountCode,
  ][]) {
    const delta = state[component] - (ledger.get(account) ?? 0n); // asset: debit balance
    if (delta !== 0n) lines.push({ account, debit: delta });
  }
  const liabilityDelta = loan.credit_balance - -(ledger.get('OVERPAYMENT_LIABILITY') ?? 0n); // liability: credit balance
  if (liabilityDelta !== 0n) lines.push({ account: 'OVERPAYMENT_LIABILITY', credit: liabilityDelta });
  if (lines.length === 0) return;
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId,
    description,
    postedBy: actor.userId,
    lines,
  });
}

import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import type { LoansRow, LoanTransactionsRow } from '../db/schema.generated.ts';
import { currencyCode, fromMinor, toDecimalString } from '../money/money.ts';
import { dryRunLoan, LOAN_STATUSES, type LoanContext, type LoanStatus } from './lifecycle/loan.ts';
import {
  loadInstallments,
  loanOutstanding,
  outstandingOf,
  totalOf,
  type Components,
  type InstallmentRow,
} from './installments.ts';
import { REVERSIBLE_TYPES } from './transaction-types.ts';
import { isInNodes } from '../auth/data-permissions.ts';

/** A `loans` row; the status check constraint and the terms the product wrote narrow two columns. */
export type LoanRow = Omit<LoansRow, 'status' | 'terms'> & { status: LoanStatus; terms: Record<string, unknown> };

/** A row of `loan_transactions_view`: the table's columns plus whether a reversal points at it. */
export type TransactionRow = LoanTransactionsRow & { reversed_by_id: string | null; is_reversed: boolean };

/**
 * A loan's amounts as the API writes them: decimal strings in the digits of the loan's currency (the
 * one source of digits, src/lib/money/money.ts; the terms also carry the product's digitsAfterDecimal,
 * which products are made to agree with).
 */
function decimalsIn(currency: string): (minor: bigint) => string {
  return (minor) => toDecimalString(fromMinor(minor, currency));
}

/** Reads and row-locks the loan (select … for update): money commands on one loan run one at a time. */
export async function lockLoan(tx: Tx, loanId: string): Promise<LoanRow> {
  assertUuid(loanId, 'loanId');
  const rows = await tx.query<LoanRow>(`select * from loans where id = $1 for update`, [loanId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
  return { ...rows[0], currency: currencyCode(rows[0].currency) };
}

export async function findLoan(tx: Tx, loanId: string): Promise<LoanRow | null> {
  if (!isUuid(loanId)) return null;
  const rows = await tx.query<LoanRow>(`select * from loans where id = $1`, [loanId]);
  return rows[0] ? { ...rows[0], currency: currencyCode(rows[0].currency) } : null;
}

export async function loadTransactions(tx: Tx, loanId: string): Promise<TransactionRow[]> {
  return tx.query<TransactionRow>(
    `select * from loan_transactions_view where loan_id = $1 order by transaction_date, seq`,
    [loanId],
  );
}

/** The guard context of the loan state machine, from the installments and transactions. */
export function loanContextOf(installments: InstallmentRow[], transactions: TransactionRow[]): LoanContext {
  const out = loanOutstanding(installments);
  return {
    outstanding: totalOf(out),
    interestOutstanding: out.interest,
    chargesOutstanding: out.fees + out.penalties,
    hasReversibleTransactions: transactions.some((t) => !t.is_reversed && REVERSIBLE_TYPES.includes(t.type)),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
export function assertUuid(value: string, field: string): void {
  if (!isUuid(value)) throw new AppError('NOT_FOUND', `No record with this ${field}`, { field });
}

function componentsJson(c: Components, currency: string) {
  const f = decimalsIn(currency);
  return {
    principal: f(c.principal),
    interest: f(c.interest),
    fees: f(c.fees),
    penalties: f(c.penalties),
    total: f(totalOf(c)),
  };
}

export function loanSummaryJson(loan: LoanRow, outstanding: Components) {
  const f = decimalsIn(loan.currency);
  return {
    id: loan.id,
    accountNo: loan.account_no,
    status: loan.status,
    customerId: loan.customer_id,
    productId: loan.product_id,
    applicationId: loan.application_id,
    offerId: loan.offer_id,
    currency: loan.currency,
    principal: f(loan.principal),
    annualInterestRate: loan.annual_interest_rate,
    numberOfRepayments: loan.number_of_repayments,
    submittedOn: loan.submitted_on,
    approvedOn: loan.approved_on,
    disbursedOn: loan.disbursed_on,
    closedOn: loan.closed_on,
    writtenOffOn: loan.written_off_on,
    creditBalance: f(loan.credit_balance),
    outstanding: componentsJson(outstanding, loan.currency),
    version: loan.version,
  };
}

export function installmentJson(row: InstallmentRow, currency: string) {
  const f = decimalsIn(currency);
  const out = outstandingOf(row);
  return {
    number: row.number,
    fromDate: row.from_date,
    dueDate: row.due_date,
    downPayment: row.is_down_payment,
    /** The N+1 installment that carries charges dated after the last due date. */
    additional: row.is_additional,
    principal: f(row.principal_due),
    interest: f(row.interest_due),
    fees: f(row.fee_due),
    penalties: f(row.penalty_due),
    total: f(row.principal_due + row.interest_due + row.fee_due + row.penalty_due),
    paid: {
      principal: f(row.principal_paid),
      interest: f(row.interest_paid),
      fees: f(row.fee_paid),
      penalties: f(row.penalty_paid),
    },
    waived: { interest: f(row.interest_waived), fees: f(row.fee_waived), penalties: f(row.penalty_waived) },
    writtenOff: {
      principal: f(row.principal_written_off),
      interest: f(row.interest_written_off),
      fees: f(row.fee_written_off),
      penalties: f(row.penalty_written_off),
    },
    outstanding: componentsJson(out, currency),
    obligationsMetOn: row.obligations_met_on,
  };
}

export function transactionJson(t: TransactionRow) {
  const f = decimalsIn(t.currency);
  return {
    id: t.id,
    type: t.type,
    date: t.transaction_date,
    amount: f(t.amount),
    currency: currencyCode(t.currency),
    principal: f(t.principal_portion),
    interest: f(t.interest_portion),
    fees: f(t.fee_portion),
    penalties: f(t.penalty_portion),
    overpayment: f(t.overpayment_portion),
    installmentNumber: t.installment_number,
    reversesId: t.reverses_id,
    reversedById: t.reversed_by_id,
    isReversed: t.is_reversed,
    note: t.note,
    createdBy: t.created_by,
    createdAt: t.created_at,
  };
}

/** The loan with its installments, transactions and the actions possible now (dry run). */
export async function getLoanView(tx: Tx, loanId: string) {
  const loan = await findLoan(tx, loanId);
  if (!loan) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
  // One connection per transaction: queries run one after the other (pg refuses overlapping queries).
  const installments = await loadInstallments(tx, loanId);
  const transactions = await loadTransactions(tx, loanId);
  return {
    ...loanSummaryJson(loan, loanOutstanding(installments)),
    installments: installments.map((row) => installmentJson(row, loan.currency)),
    transactions: transactions.map((t) => transactionJson(t)),
    actions: dryRunLoan(loan.status, {
      ...loanContextOf(installments, transactions),
      creditBalance: loan.credit_balance,
    }).map((e) => ({
      action: e.action,
      allowed: e.allowed,
      ...(e.reason ? { reason: e.reason.code, message: e.reason.message } : {}),
    })),
  };
}

export type ListLoansQuery = {
  status?: LoanStatus;
  customerId?: string;
  limit?: number;
  cursor?: string | null;
  /** Hierarchy nodes the caller may see (src/lib/tenancy/scope.ts resolveScopeNodes); null = all. */
  scopeNodes?: string[] | null;
};

/** SQL condition: the loan (alias l) is in the hierarchy node set bound as `param` (its officer, or its customer's branch or officer). */
export function loanScopeSql(param: string): string {
  return `(l.officer_id = any(${param}::uuid[]) or exists (select 1 from customers c where c.tenant_id = l.tenant_id and c.id = l.customer_id
            and (c.branch_id = any(${param}::uuid[]) or c.officer_id = any(${param}::uuid[]))))`;
}

/** Whether the loan is inside the caller's hierarchy scope (null nodes = unrestricted). */
export async function isLoanInScope(tx: Tx, loanId: string, scopeNodes: string[] | null): Promise<boolean> {
  if (scopeNodes === null) return true;
  return isInNodes(tx, 'loan', loanId, scopeNodes);
}

/**
 * Loans newest first, keyset-paginated: `cursor` is the `nextCursor` of the previous page.
 * Outstanding totals are summed in SQL so a page costs one query.
 */
export async function listLoans(tx: Tx, query: ListLoansQuery) {
  if (query.status && !LOAN_STATUSES.includes(query.status)) {
    throw new AppError('BAD_REQUEST', `status must be one of ${LOAN_STATUSES.join(', ')}`, { field: 'status' });
  }
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.status) {
    params.push(query.status);
    where.push(`l.status = $${params.length}`);
  }
  if (query.customerId) {
    assertUuid(query.customerId, 'customerId');
    params.push(query.customerId);
    where.push(`l.customer_id = $${params.length}`);
  }
  if (query.scopeNodes) {
    params.push(query.scopeNodes);
    where.push(loanScopeSql(`$${params.length}`));
  }
  if (query.cursor) {
    const [at, id] = Buffer.from(query.cursor, 'base64url').toString('utf8').split('|');
    if (!at || !id || !isUuid(id) || Number.isNaN(Date.parse(at)))
      throw new AppError('BAD_REQUEST', 'cursor is not valid', { field: 'cursor' });
    params.push(at, id);
    where.push(`(l.created_at, l.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(limit + 1);
  const rows = await tx.query<LoanRow & { p: string; i: string; f: string; pen: string; cursor_at: string }>(
    `select l.*, l.created_at::text as cursor_at,
       coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)::text as p,
       coalesce(sum(i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off), 0)::text as i,
       coalesce(sum(i.fee_due - i.fee_paid - i.fee_waived - i.fee_written_off), 0)::text as f,
       coalesce(sum(i.penalty_due - i.penalty_paid - i.penalty_waived - i.penalty_written_off), 0)::text as pen
     from loans l left join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
     ${where.length ? `where ${where.join(' and ')}` : ''}
     group by l.tenant_id, l.id
     order by l.created_at desc, l.id desc
     limit $${params.length}`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ cursor_at: _cursor, ...r }) =>
      loanSummaryJson(
        { ...r, currency: currencyCode(r.currency) },
        { principal: BigInt(r.p), interest: BigInt(r.i), fees: BigInt(r.f), penalties: BigInt(r.pen) },
      ),
    ),
    nextCursor: rows.length > limit && last ? Buffer.from(`${last.cursor_at}|${last.id}`).toString('base64url') : null,
  };
}

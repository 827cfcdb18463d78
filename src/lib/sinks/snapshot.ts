import type { Tx } from '../db/index.ts';
import type { DomainEvent } from '../events/outbox.ts';
import type { CustomersRow, LoanInstallmentsRow, LoansRow, LoanTransactionsRow } from '../db/schema.generated.ts';

/**
 * The product's current rows that a sink copies as table snapshots: customers, loans, and each loan's
 * installments and transactions. Amounts stay integers of minor units (with the currency), dates
 * 'YYYY-MM-DD', moments ISO strings: the same values whichever target gets them.
 */

export type CustomerSnapshot = Pick<
  CustomersRow,
  | 'id'
  | 'external_id'
  | 'first_name'
  | 'last_name'
  | 'email'
  | 'phone'
  | 'date_of_birth'
  | 'branch_id'
  | 'officer_id'
  | 'segment'
  | 'opt_in_status'
  | 'risk_class'
  | 'active_loans'
  | 'version'
> & { created_at: string; updated_at: string };

export type InstallmentSnapshot = Omit<LoanInstallmentsRow, 'tenant_id' | 'id'>;
export type TransactionSnapshot = Omit<
  LoanTransactionsRow,
  'tenant_id' | 'seq' | 'note' | 'created_by' | 'created_at'
> & {
  created_at: string;
};
export type LoanSnapshot = Pick<
  LoansRow,
  | 'id'
  | 'account_no'
  | 'customer_id'
  | 'product_id'
  | 'status'
  | 'currency'
  | 'principal'
  | 'number_of_repayments'
  | 'annual_interest_rate'
  | 'expected_disbursement_date'
  | 'submitted_on'
  | 'approved_on'
  | 'disbursed_on'
  | 'closed_on'
  | 'written_off_on'
  | 'maturity_date'
  | 'outstanding'
  | 'principal_outstanding'
  | 'credit_balance'
  | 'version'
> & {
  created_at: string;
  updated_at: string;
  /** From the loan's terms: every `repayment_every` DAYS/WEEKS/MONTHS. */
  repayment_every: number;
  repayment_frequency: string;
  installments: InstallmentSnapshot[];
  transactions: TransactionSnapshot[];
};

const ISO = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ${column.replace(/^\w+\./, '')}`;

const CUSTOMER_COLUMNS = `c.id, c.external_id, c.first_name, c.last_name, c.email, c.phone, c.date_of_birth, c.branch_id,
  c.officer_id, c.segment, c.opt_in_status, c.risk_class, c.active_loans, c.version, ${ISO('c.created_at')}, ${ISO('c.updated_at')}`;

const LOAN_COLUMNS = `l.id, l.account_no, l.customer_id, l.product_id, l.status, l.currency, l.principal, l.number_of_repayments,
  l.annual_interest_rate, l.expected_disbursement_date, l.submitted_on, l.approved_on, l.disbursed_on, l.closed_on,
  l.written_off_on, l.maturity_date, l.outstanding, l.principal_outstanding, l.credit_balance, l.version,
  ${ISO('l.created_at')}, ${ISO('l.updated_at')}, coalesce((l.terms->>'repaymentEvery')::int, 1) as repayment_every,
  coalesce(l.terms->>'repaymentFrequency', 'MONTHS') as repayment_frequency`;

export async function loadCustomers(tx: Tx, ids: readonly string[]): Promise<CustomerSnapshot[]> {
  if (!ids.length) return [];
  return tx.query<CustomerSnapshot>(
    `select ${CUSTOMER_COLUMNS} from customers c where c.id = any($1::uuid[]) order by c.id`,
    [[...new Set(ids)]],
  );
}

async function withDetails(
  tx: Tx,
  loans: Omit<LoanSnapshot, 'installments' | 'transactions'>[],
): Promise<LoanSnapshot[]> {
  if (!loans.length) return [];
  const ids = loans.map((l) => l.id);
  const installments = await tx.query<InstallmentSnapshot>(
    `select loan_id, number, from_date, due_date, is_down_payment, principal_due, interest_due, fee_due, penalty_due,
            principal_paid, interest_paid, fee_paid, penalty_paid, interest_waived, fee_waived, penalty_waived,
            principal_written_off, interest_written_off, fee_written_off, penalty_written_off, obligations_met_on
       from loan_installments where loan_id = any($1::uuid[]) order by loan_id, number`,
    [ids],
  );
  const transactions = await tx.query<TransactionSnapshot>(
    `select t.id, t.loan_id, t.type, t.transaction_date, t.currency, t.amount, t.principal_portion, t.interest_portion,
            t.fee_portion, t.penalty_portion, t.overpayment_portion, t.installment_number, t.reverses_id, ${ISO('t.created_at')}
       from loan_transactions t where t.loan_id = any($1::uuid[]) order by t.loan_id, t.seq`,
    [ids],
  );
  const byLoan = <T extends { loan_id: string }>(rows: T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) map.set(row.loan_id, [...(map.get(row.loan_id) ?? []), row]);
    return map;
  };
  const inst = byLoan(installments);
  const txns = byLoan(transactions);
  return loans.map((l) => ({ ...l, installments: inst.get(l.id) ?? [], transactions: txns.get(l.id) ?? [] }));
}

export async function loadLoans(tx: Tx, ids: readonly string[]): Promise<LoanSnapshot[]> {
  if (!ids.length) return [];
  const loans = await tx.query<Omit<LoanSnapshot, 'installments' | 'transactions'>>(
    `select ${LOAN_COLUMNS} from loans l where l.id = any($1::uuid[]) order by l.id`,
    [[...new Set(ids)]],
  );
  return withDetails(tx, loans);
}

/** The next page of the initial snapshot: ids after `after` (null: from the start). */
export async function pageIds(
  tx: Tx,
  table: 'customers' | 'loans',
  after: string | null,
  limit: number,
): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `select id from ${table} where ($1::uuid is null or id > $1::uuid) order by id limit $2`,
    [after, limit],
  );
  return rows.map((r) => r.id);
}

/** A sweep position: rows changed after (at, id). */
export type SweepMark = { at: string; id: string };
export type Sweep = { customers?: SweepMark; loans?: SweepMark };

/** How far behind the clock the sweep stays, so a row written by a transaction still running is not passed. */
export const SWEEP_MARGIN_MINUTES = 10;
const ZERO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Rows of `table` changed since `mark` (by updated_at, id), at most `limit`, and the next mark: the
 * last row when the page is full (more to read), else the clock minus the margin (the window since
 * then is read again next time: upserts make that harmless).
 */
export async function sweepIds(
  tx: Tx,
  table: 'customers' | 'loans',
  mark: SweepMark | undefined,
  limit: number,
): Promise<{ ids: string[]; next: SweepMark }> {
  const [clock] = await tx.query<{ at: string }>(
    `select to_char((now() - make_interval(mins => $1)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at`,
    [SWEEP_MARGIN_MINUTES],
  );
  const from = mark ?? { at: clock.at, id: ZERO_ID };
  const rows = await tx.query<{ id: string; at: string }>(
    `select id, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from ${table}
      where (updated_at, id) > ($1::timestamptz, $2::uuid) order by updated_at, id limit $3`,
    [from.at, from.id, limit],
  );
  const last = rows.at(-1);
  const next = rows.length === limit && last ? { at: last.at, id: last.id } : { at: clock.at, id: ZERO_ID };
  return { ids: rows.map((r) => r.id), next };
}

/** The customers and loans a batch of events touches (a loan event touches its customer too). */
export async function touchedBy(
  tx: Tx,
  events: readonly DomainEvent[],
): Promise<{ customers: string[]; loans: string[] }> {
  const customers = new Set<string>();
  const loans = new Set<string>();
  const applications = new Set<string>();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  for (const e of events) {
    if (!e.objectId || !uuid.test(e.objectId)) continue;
    if (e.objectType === 'customer') customers.add(e.objectId);
    else if (e.objectType === 'loan') loans.add(e.objectId);
    else if (e.objectType === 'loan_application') applications.add(e.objectId);
  }
  if (applications.size) {
    const rows = await tx.query<{ id: string }>(`select id from loans where application_id = any($1::uuid[])`, [
      [...applications],
    ]);
    for (const r of rows) loans.add(r.id);
  }
  if (loans.size) {
    const rows = await tx.query<{ customer_id: string }>(`select customer_id from loans where id = any($1::uuid[])`, [
      [...loans],
    ]);
    for (const r of rows) customers.add(r.customer_id);
  }
  return { customers: [...customers], loans: [...loans] };
}

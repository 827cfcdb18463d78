import type { Tx } from '../db/index.ts';
import type { LoanInstallmentsRow } from '../db/schema.generated.ts';
import type { OutstandingInstallment } from '../schedule/types.ts';

/** One row of loan_installments (amounts in minor units). */
export type InstallmentRow = LoanInstallmentsRow;

export type Components = { principal: bigint; interest: bigint; fees: bigint; penalties: bigint };
export const ZERO: Components = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n };

export function addComponents(a: Components, b: Components): Components {
  return {
    principal: a.principal + b.principal,
    interest: a.interest + b.interest,
    fees: a.fees + b.fees,
    penalties: a.penalties + b.penalties,
  };
}
export function totalOf(c: Components): bigint {
  return c.principal + c.interest + c.fees + c.penalties;
}

/** What is still owed on one installment, per component. */
export function outstandingOf(row: InstallmentRow): Components {
  return {
    principal: row.principal_due - row.principal_paid - row.principal_written_off,
    interest: row.interest_due - row.interest_paid - row.interest_waived - row.interest_written_off,
    fees: row.fee_due - row.fee_paid - row.fee_waived - row.fee_written_off,
    penalties: row.penalty_due - row.penalty_paid - row.penalty_waived - row.penalty_written_off,
  };
}

export function loanOutstanding(rows: InstallmentRow[]): Components {
  return rows.reduce((sum, row) => addComponents(sum, outstandingOf(row)), ZERO);
}

/** The allocation engine's view of the installments (the schedule engine's OutstandingInstallment). */
export function toOutstandingInstallments(rows: InstallmentRow[]): OutstandingInstallment[] {
  return rows.map((row) => ({
    number: row.number,
    fromDate: row.from_date,
    dueDate: row.due_date,
    ...outstandingOf(row),
  }));
}

/** Marks the date an installment became fully settled (or clears it when it no longer is). */
export function settle(row: InstallmentRow, date: string): void {
  const isSettled = totalOf(outstandingOf(row)) === 0n;
  if (isSettled && !row.obligations_met_on) row.obligations_met_on = date;
  if (!isSettled) row.obligations_met_on = null;
}

/** The columns saveInstallments writes (what replays, payments, waivers and write-offs change), with their SQL types. */
const SAVED_COLUMNS = [
  ['fee_due', 'int8'],
  ['penalty_due', 'int8'],
  ['principal_paid', 'int8'],
  ['interest_paid', 'int8'],
  ['fee_paid', 'int8'],
  ['penalty_paid', 'int8'],
  ['interest_waived', 'int8'],
  ['fee_waived', 'int8'],
  ['penalty_waived', 'int8'],
  ['principal_written_off', 'int8'],
  ['interest_written_off', 'int8'],
  ['fee_written_off', 'int8'],
  ['penalty_written_off', 'int8'],
  ['obligations_met_on', 'date'],
] as const satisfies readonly (readonly [keyof InstallmentRow, string])[];

// The written columns of each row as loaded, so saveInstallments writes only rows that changed.
const loaded = new WeakMap<InstallmentRow, string>();
const fingerprint = (r: InstallmentRow) => SAVED_COLUMNS.map(([c]) => r[c]).join('|');

export async function loadInstallments(tx: Tx, loanId: string): Promise<InstallmentRow[]> {
  return trackInstallments(
    await tx.query<InstallmentRow>(`select * from loan_installments where loan_id = $1 order by number`, [loanId]),
  );
}

/** Remembers rows as read from the database (a select or an insert's `returning *`), for saveInstallments. */
export function trackInstallments(rows: InstallmentRow[]): InstallmentRow[] {
  for (const row of rows) loaded.set(row, fingerprint(row));
  return rows;
}

// One statement for every changed row: the summary trigger on loan_installments runs once per
// statement, so a replay that touches ten installments costs one round trip and one refresh, not ten.
const SAVE_SQL = `update loan_installments i set ${SAVED_COLUMNS.map(([c]) => `${c} = u.${c}`).join(', ')}
  from unnest($1::uuid[], ${SAVED_COLUMNS.map(([, type], k) => `$${k + 2}::${type}[]`).join(', ')})
    as u(id, ${SAVED_COLUMNS.map(([c]) => c).join(', ')})
 where i.id = u.id`;

/** Writes every settled/due amount of the given rows back (one statement for all the changed rows). */
export async function saveInstallments(tx: Tx, rows: InstallmentRow[]): Promise<void> {
  const changed = rows.filter((r) => loaded.get(r) !== fingerprint(r));
  if (changed.length === 0) return;
  await tx.query(SAVE_SQL, [changed.map((r) => r.id), ...SAVED_COLUMNS.map(([c]) => changed.map((r) => r[c]))]);
  for (const r of changed) loaded.set(r, fingerprint(r));
}

/**
 * The installment that carries a charge dated `dueDate` after the loan's last due date `maturity`
 * (Fineract's N+1 "additional" installment, `addChargeOnlyRepaymentInstallmentIfRequired`): the
 * loan's N+1 row, its due date moved to `dueDate` when that is later, or a new one (principal and
 * interest 0, from `maturity` to `dueDate`) appended to `rows`. Dues are added by the caller.
 */
export async function additionalInstallmentFor(
  tx: Tx,
  rows: InstallmentRow[],
  maturity: string,
  dueDate: string,
): Promise<InstallmentRow> {
  const existing = rows.find((r) => r.is_additional);
  if (existing) {
    if (dueDate > existing.due_date) {
      await tx.query(`update loan_installments set due_date = $2 where id = $1`, [existing.id, dueDate]);
      existing.due_date = dueDate;
    }
    return existing;
  }
  const last = rows[rows.length - 1];
  const [row] = await tx.query<InstallmentRow>(
    `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, is_down_payment, is_additional,
       principal_due, interest_due, fee_due, penalty_due)
     values ($1, $2, $3, $4, $5, false, true, 0, 0, 0, 0)
     returning *`,
    [last.tenant_id, last.loan_id, last.number + 1, maturity, dueDate],
  );
  loaded.set(row, fingerprint(row));
  rows.push(row);
  return row;
}

/**
 * Removes the loan's N+1 installment once it carries nothing (every charge on it reversed), as
 * Fineract's `reprocessInstallments` drops an additional installment whose dues are zero. A waived
 * charge still counts: the installment stays, settled.
 */
export async function removeEmptyAdditional(tx: Tx, rows: InstallmentRow[]): Promise<void> {
  const last = rows[rows.length - 1];
  if (!last?.is_additional) return;
  if (last.principal_due + last.interest_due + last.fee_due + last.penalty_due !== 0n) return;
  await tx.query(`delete from loan_installments where id = $1`, [last.id]);
  rows.pop();
}

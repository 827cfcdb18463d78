import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { Actor } from '../lending/actor.ts';
import {
  checkUploadMeta,
  readLimited,
  storeCustomerFile,
  type CustomerFileRow,
  type StoreOptions,
  type UploadMeta,
} from '../customer-files/files.ts';
import { parseStatementCsv, type StatementRow } from './csv.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import type { BankStatementImportsRow, CustomerBankTransactionsRow, TenantsRow } from '../db/schema.generated.ts';

/** A `bank_statement_imports` row; the list adds the statement file's name. */
export type StatementImport = BankStatementImportsRow & { file_name?: string };

/**
 * Imports a bank-statement CSV as one unit: the file is kept (kind 'bank_statement'), its rows become
 * customer_bank_transactions (source 'statement', import_id set) and the monthly metrics of every month
 * it touches are recomputed from all the customer's transactions. A faulty row refuses the whole file
 * with a 422 listing each fault (details.rows); the same file twice is refused (409).
 */
export async function importBankStatement(
  db: Db,
  actor: Actor,
  input: Omit<UploadMeta, 'kind'> & { customerId: string; body: ReadableStream<Uint8Array> | null },
  options: StoreOptions = {},
): Promise<{ import: StatementImport; file: CustomerFileRow }> {
  // Another branch's customer does not exist for the caller, whatever the upload looks like.
  const currency = await db.tenant(actor.tenantId, async (tx) => {
    await assertInScope(tx, actor, 'customer', input.customerId);
    const [tenant] = await tx.query<Pick<TenantsRow, 'currency'>>(`select currency from tenants where id = $1`, [
      actor.tenantId,
    ]);
    return tenant.currency.trim();
  });
  const meta = checkUploadMeta({ ...input, kind: 'bank_statement' });
  const bytes = await readLimited(input.body, meta.rule.maxBytes);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const parsed = parseStatementCsv(text, currency);
  if (parsed.errors.length) {
    throw new AppError('UNPROCESSABLE', `The statement was not imported: ${parsed.errors.length} row(s) have errors`, {
      field: 'file',
      details: { rows: parsed.errors.slice(0, 200), errorCount: parsed.errors.length },
    });
  }
  const { file, extra } = await storeCustomerFile(
    db,
    actor,
    {
      customerId: input.customerId,
      kind: 'bank_statement',
      fileName: meta.fileName,
      contentType: meta.contentType,
      bytes,
    },
    options,
    async (tx, stored) => {
      const same = await tx.query(
        `select 1 from bank_statement_imports i join customer_files f on f.tenant_id = i.tenant_id and f.id = i.file_id
          where i.customer_id = $1 and f.sha256 = $2`,
        [input.customerId, stored.sha256],
      );
      if (same[0])
        throw new AppError('CONFLICT', 'This statement has already been imported for this customer', { field: 'file' });
      return insertStatement(tx, actor, input.customerId, stored.id, currency, parsed.rows);
    },
  );
  return { import: extra!, file };
}

async function insertStatement(
  tx: Tx,
  actor: Actor,
  customerId: string,
  fileId: string,
  currency: string,
  rows: StatementRow[],
): Promise<StatementImport> {
  const sorted = [...rows].sort((a, b) =>
    a.bookedOn < b.bookedOn ? -1 : a.bookedOn > b.bookedOn ? 1 : a.line - b.line,
  );
  // Rows without a balance continue from the last known balance before the statement (0 if none).
  const [last] = await tx.query<Pick<CustomerBankTransactionsRow, 'balance_after'>>(
    `select balance_after from customer_bank_transactions where customer_id = $1 and booked_on <= $2 order by booked_on desc, balance_after limit 1`,
    [customerId, sorted[0].bookedOn],
  );
  let balance = last?.balance_after ?? 0n;
  const balances = sorted.map((r) => {
    balance = r.balance ?? balance + r.amount;
    return balance;
  });
  const [created] = await tx.query<StatementImport>(
    `insert into bank_statement_imports (tenant_id, customer_id, file_id, currency, row_count, first_date, last_date, imported_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
    [
      actor.tenantId,
      customerId,
      fileId,
      currency,
      sorted.length,
      sorted[0].bookedOn,
      sorted[sorted.length - 1].bookedOn,
      actor.userId,
    ],
  );
  await tx.query(
    `insert into customer_bank_transactions (tenant_id, customer_id, booked_on, currency, amount, balance_after, category, description, source, import_id)
     select $1, $2, d, $3, a, b, c, t, 'statement', $4
       from unnest($5::date[], $6::int8[], $7::int8[], $8::text[], $9::text[]) as r(d, a, b, c, t)`,
    [
      actor.tenantId,
      customerId,
      currency,
      created.id,
      sorted.map((r) => r.bookedOn),
      sorted.map((r) => r.amount.toString()),
      balances.map((b) => b.toString()),
      sorted.map((r) => r.category),
      sorted.map((r) => r.description),
    ],
  );
  await refreshMonthlyMetrics(tx, actor.tenantId, customerId, [
    ...new Set(sorted.map((r) => `${r.bookedOn.slice(0, 7)}-01`)),
  ]);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'bank_statement.import',
    objectType: 'customer',
    objectId: customerId,
    after: {
      importId: created.id,
      fileId,
      rowCount: sorted.length,
      firstDate: created.first_date,
      lastDate: created.last_date,
      inflow: sorted.reduce((s, r) => (r.amount > 0n ? s + r.amount : s), 0n),
      outflow: sorted.reduce((s, r) => (r.amount < 0n ? s - r.amount : s), 0n),
    },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return created;
}

/** Recomputes customer_transaction_metrics for the given months (first days) from every transaction of the customer. */
export async function refreshMonthlyMetrics(
  tx: Tx,
  tenantId: string,
  customerId: string,
  months: string[],
): Promise<void> {
  await tx.query(`delete from customer_transaction_metrics where customer_id = $1 and month = any($2::date[])`, [
    customerId,
    months,
  ]);
  await tx.query(
    `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow, closing_balance, min_balance, transaction_count)
     select $1, customer_id, date_trunc('month', booked_on)::date, min(currency),
            coalesce(sum(amount) filter (where amount > 0), 0)::int8, coalesce(-sum(amount) filter (where amount < 0), 0)::int8,
            sum(amount)::int8, (array_agg(balance_after order by booked_on desc, balance_after))[1], min(balance_after), count(*)::int
       from customer_bank_transactions
      where customer_id = $2 and date_trunc('month', booked_on)::date = any($3::date[])
      group by customer_id, date_trunc('month', booked_on)`,
    [tenantId, customerId, months],
  );
}

export async function listStatementImports(tx: Tx, customerId: string): Promise<StatementImport[]> {
  return tx.query<StatementImport>(
    `select i.*, f.file_name from bank_statement_imports i join customer_files f on f.tenant_id = i.tenant_id and f.id = i.file_id
      where i.customer_id = $1 order by i.created_at desc, i.id`,
    [customerId],
  );
}

import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { validationMessage } from '../errors/messages.ts';
import { parseDateInput } from '../dates/parse-date.ts';
import { currencyCode, currencyDigits, parseMinor } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { Actor } from '../lending/actor.ts';
import { scopeNodesFor } from '../auth/data-permissions.ts';
import { createCustomer } from '../lending/customers.ts';
import { submitApplication } from '../lending/commands/submit-application.ts';
import { approveApplication } from '../lending/commands/approve-application.ts';
import { disburseLoan } from '../lending/commands/disburse-loan.ts';
import { repayLoan } from '../lending/commands/repay-loan.ts';
import { refreshMonthlyMetrics } from '../bank-statements/import.ts';
import type { CustomerBankTransactionsRow, TenantsRow } from '../db/schema.generated.ts';
import { KEY_KIND, KIND_FIELDS, type ColumnMapping, type ImportKind } from './kinds.ts';
import type { ParsedFile } from './file.ts';

/**
 * Runs one import file through the lending commands, all or nothing.
 *
 * 1. Every row is checked first (required fields, the one money parser, calendar dates, lengths,
 *    references to customers, products, loans, branches and officers by their codes or external ids,
 *    duplicates inside the file). Any fault refuses the whole file with every faulty row reported.
 * 2. Then, in ONE transaction, each new row goes through the same command a person would run
 *    (`createCustomer`; `submitApplication` → `approveApplication` → `disburseLoan` → `repayLoan` for a
 *    loan and its history; `repayLoan` for a repayment); rows whose natural key was imported before
 *    are skipped and counted. A command's refusal names its row and rolls everything back.
 * 3. A dry run is step 2 rolled back at the end: the same checks as the commit, nothing written.
 */

export type RowError = {
  /** Row number in the file (the header is row 1). */
  row: number;
  /** The file's column (its header), or the field when it is not mapped. */
  column: string;
  /** Message key ('dataimport.*' in the dataimport namespace, else the validation messages) and parameters. */
  key: string | null;
  params: Record<string, string | number>;
  /** English text (logs, API clients that do not translate). */
  message: string;
};

export type ImportOutcome = {
  total: number;
  created: number;
  skipped: number;
  errors: RowError[];
  errorCount: number;
  firstDate: string | null;
  lastDate: string | null;
};

export type ProgressFn = (done: number, total: number) => void | Promise<void>;

const MAX_REPORTED_ERRORS = 200;
/** The checker of imported loans: the source system approved them; the importer cannot be their own checker. */
export const IMPORT_CHECKER = 'system:data-import';

const EN_MESSAGES: Record<string, string> = {
  'dataimport.required': 'is required',
  'dataimport.tooLong': 'is longer than {{max}} characters',
  'dataimport.duplicateInFile': 'appears more than once in the file (first at row {{first}})',
  'dataimport.unknownCustomer': 'names no customer with this external id: {{value}}',
  'dataimport.unknownProduct': 'names no active loan product with this code: {{value}}',
  'dataimport.unknownLoan': 'names no loan with this external id or account number: {{value}}',
  'dataimport.unknownBranch': 'names no branch with this code: {{value}}',
  'dataimport.unknownOfficer': 'names no officer with this code: {{value}}',
  'dataimport.nationalIdTaken': 'is already the national id of another customer',
  'dataimport.email': 'is not a valid e-mail address',
  'dataimport.wholeNumber': 'must be a whole number between 1 and 1000',
  'dataimport.rate': 'must be a percentage such as 12.5',
  'dataimport.history':
    'must list repayments as date=amount separated by "|", e.g. 2026-02-01=150.00|2026-03-01=150.00',
  'dataimport.historyOrder': 'repayments must be in date order and not before the disbursement',
  'dataimport.conflict': 'conflicts with data already in the product',
};

function rowError(row: number, column: string, key: string, params: Record<string, string | number> = {}): RowError {
  const template = EN_MESSAGES[key];
  const message = template
    ? `${column} ${template.replace(/\{\{(\w+)\}\}/g, (_, n: string) => String(params[n] ?? ''))}`
    : validationMessage('en', key, params, column);
  return { row, column, key, params, message };
}

class RowFailure extends Error {
  readonly error: RowError;
  constructor(error: RowError) {
    super(error.message);
    this.error = error;
  }
}

class DryRunDone extends Error {
  readonly outcome: ImportOutcome;
  constructor(outcome: ImportOutcome) {
    super('dry run');
    this.outcome = outcome;
  }
}

/** A row's values by field name, read through the mapping. */
type Values = Record<string, string>;
type Row = { line: number; values: Values };

function rowsOf(kind: ImportKind, file: ParsedFile, mapping: ColumnMapping): Row[] {
  const index = new Map<string, number>();
  for (const field of KIND_FIELDS[kind]) {
    const header = mapping[field.name];
    if (header) index.set(field.name, file.headers.indexOf(header));
  }
  return file.rows.map((r) => {
    const values: Values = {};
    for (const [field, i] of index) values[field] = i >= 0 ? (r.cells[i] ?? '').trim() : '';
    return { line: r.line, values };
  });
}

/** What a row check collects: faults, and the column each field is read from. */
class Checker {
  readonly errors: RowError[] = [];
  readonly mapping: ColumnMapping;
  constructor(mapping: ColumnMapping) {
    this.mapping = mapping;
  }
  column(field: string): string {
    return this.mapping[field] || field;
  }
  fail(row: number, field: string, key: string, params: Record<string, string | number> = {}): void {
    this.errors.push(rowError(row, this.column(field), key, params));
  }
  text(row: Row, field: string, options: { isRequired?: boolean; max?: number } = {}): string | null {
    const value = row.values[field] ?? '';
    if (!value) {
      if (options.isRequired) this.fail(row.line, field, 'dataimport.required');
      return null;
    }
    const max = options.max ?? 200;
    if (value.length > max) {
      this.fail(row.line, field, 'dataimport.tooLong', { max });
      return null;
    }
    return value;
  }
  date(row: Row, field: string, rules: { isRequired?: boolean; max?: string; min?: string }): string | null {
    const value = row.values[field] ?? '';
    if (!value && !rules.isRequired) return null;
    const result = parseDateInput(value, { max: rules.max, maxIsBusinessDate: true, min: rules.min });
    if (!result.ok) {
      this.fail(row.line, field, result.problem.key, result.problem.params as Record<string, string | number>);
      return null;
    }
    return result.date;
  }
  money(
    row: Row,
    field: string,
    currency: string,
    options: { isRequired?: boolean; allowNegative?: boolean } = {},
  ): bigint | null {
    const value = row.values[field] ?? '';
    if (!value) {
      if (options.isRequired) this.fail(row.line, field, 'dataimport.required');
      return null;
    }
    try {
      return parseMinor(value, currencyDigits(currency), field, {
        allowNegative: options.allowNegative ?? false,
        allowZero: false,
      });
    } catch (error) {
      if (error instanceof AppError && error.key) {
        this.fail(row.line, field, error.key, (error.params ?? {}) as Record<string, string | number>);
        return null;
      }
      throw error;
    }
  }
  /** The natural key, refused when it appears twice in the file. */
  key(row: Row, seen: Map<string, number>): string | null {
    const key = this.text(row, 'external_id', { isRequired: true, max: 100 });
    if (key === null) return null;
    const first = seen.get(key);
    if (first !== undefined) {
      this.fail(row.line, 'external_id', 'dataimport.duplicateInFile', { first });
      return null;
    }
    seen.set(key, row.line);
    return key;
  }
}

async function lookup(
  tx: Tx,
  sql: string,
  values: string[],
  extra: unknown[] = [],
): Promise<Map<string, Record<string, unknown>>> {
  const unique = [...new Set(values)];
  const map = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < unique.length; i += 5000) {
    const rows = await tx.query<{ k: string } & Record<string, unknown>>(sql, [unique.slice(i, i + 5000), ...extra]);
    for (const r of rows) map.set(r.k, r);
  }
  return map;
}

/**
 * The customers a file names by external id, among those the importer may act on (hierarchy data
 * permissions): a customer outside the importer's scope is "no customer with this external id", as a
 * page would answer 404. Commands check placement again; bank lines are written directly, so this is
 * their scope check.
 */
async function customersInScope(tx: Tx, ctx: Context, refs: string[]): Promise<Map<string, Record<string, unknown>>> {
  const nodes = await scopeNodesFor(tx, ctx.actor);
  return lookup(
    tx,
    `select external_id as k, id from customers where external_id = any($1::text[])
        and ($2::uuid[] is null or branch_id = any($2::uuid[]) or officer_id = any($2::uuid[]))`,
    refs,
    [nodes],
  );
}

async function importedKeys(tx: Tx, kind: ImportKind, keys: string[]): Promise<Map<string, string | null>> {
  const rows = await lookup(
    tx,
    `select natural_key as k, object_id::text as object_id from data_import_keys where kind = '${KEY_KIND[kind]}' and natural_key = any($1::text[])`,
    keys,
  );
  return new Map([...rows].map(([k, r]) => [k, (r.object_id as string | null) ?? null]));
}

// ---------------------------------------------------------------------------------------------
// The kinds: each `prepare` checks every row (reads only) and gives the work of the valid ones.

type Work = {
  line: number;
  key: string;
  isSkipped: boolean;
  date: string | null;
  run: (tx: Tx) => Promise<string | null>;
};
type Prepared = { errors: RowError[]; work: Work[]; lines?: Map<string, BankLine> };

type Context = { actor: Actor; today: string; currency: string; mapping: ColumnMapping; importId: string };

/** Maps a command's refusal (field names of the API) to the import's field. */
const COMMAND_FIELDS: Record<string, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  branchId: 'branch',
  officerId: 'officer',
  dateOfBirth: 'date_of_birth',
  nationalId: 'national_id',
  principal: 'principal',
  numberOfRepayments: 'number_of_repayments',
  annualInterestRate: 'annual_interest_rate',
  expectedDisbursementDate: 'disbursed_on',
  customerId: 'customer_external_id',
  productId: 'product',
  loanId: 'loan',
};

async function prepareCustomers(tx: Tx, ctx: Context, rows: Row[]): Promise<Prepared> {
  const check = new Checker(ctx.mapping);
  const seen = new Map<string, number>();
  const nationalSeen = new Map<string, number>();
  const existing = await lookup(
    tx,
    `select external_id as k from customers where external_id = any($1::text[])`,
    rows.map((r) => r.values.external_id ?? ''),
  );
  const nationals = await lookup(
    tx,
    `select national_id as k, external_id from customers where national_id = any($1::text[])`,
    rows.map((r) => r.values.national_id ?? '').filter(Boolean),
  );
  const nodes = await tx.query<{ level: string; code: string; id: string }>(
    `select level, code, id from hierarchy_nodes where level in ('branch', 'officer')`,
  );
  const node = (level: string, code: string) => nodes.find((n) => n.level === level && n.code === code)?.id;
  const work: Work[] = [];
  for (const row of rows) {
    const before = check.errors.length;
    const key = check.key(row, seen);
    const firstName = check.text(row, 'first_name', { isRequired: true });
    const lastName = check.text(row, 'last_name', { isRequired: true });
    const nationalId = check.text(row, 'national_id', { max: 50 });
    const phone = check.text(row, 'phone', { max: 50 });
    const email = check.text(row, 'email', { max: 200 });
    if (email && !/^[^@\s]+@[^@\s]+$/.test(email)) check.fail(row.line, 'email', 'dataimport.email');
    const dateOfBirth = check.date(row, 'date_of_birth', { max: ctx.today });
    const branchCode = check.text(row, 'branch', { max: 50 });
    const officerCode = check.text(row, 'officer', { max: 50 });
    const branchId = branchCode ? node('branch', branchCode) : null;
    const officerId = officerCode ? node('officer', officerCode) : null;
    if (branchCode && !branchId) check.fail(row.line, 'branch', 'dataimport.unknownBranch', { value: branchCode });
    if (officerCode && !officerId) check.fail(row.line, 'officer', 'dataimport.unknownOfficer', { value: officerCode });
    const segment = check.text(row, 'segment', { max: 100 });
    const riskClass = check.text(row, 'risk_class', { max: 50 });
    if (nationalId) {
      const taken = nationals.get(nationalId);
      const first = nationalSeen.get(nationalId);
      if (taken && taken.external_id !== key) check.fail(row.line, 'national_id', 'dataimport.nationalIdTaken');
      else if (first !== undefined) check.fail(row.line, 'national_id', 'dataimport.duplicateInFile', { first });
      else nationalSeen.set(nationalId, row.line);
    }
    if (check.errors.length > before || key === null) continue;
    work.push({
      line: row.line,
      key,
      isSkipped: existing.has(key),
      date: null,
      run: async (t) =>
        (
          await createCustomer(t, ctx.actor, {
            externalId: key,
            firstName: firstName!,
            lastName: lastName!,
            nationalId,
            phone,
            email,
            dateOfBirth,
            branchId,
            officerId,
            segment,
            riskClass,
          })
        ).id,
    });
  }
  return { errors: check.errors, work };
}

const RATE = /^\d{1,3}(\.\d{1,6})?$/;

async function prepareLoans(tx: Tx, ctx: Context, rows: Row[]): Promise<Prepared> {
  const check = new Checker(ctx.mapping);
  const seen = new Map<string, number>();
  const customers = await customersInScope(
    tx,
    ctx,
    rows.map((r) => r.values.customer_external_id ?? ''),
  );
  const products = await lookup(
    tx,
    `select code as k, id, currency from loan_products where is_active and code = any($1::text[])`,
    rows.map((r) => r.values.product ?? ''),
  );
  const done = await importedKeys(
    tx,
    'loans',
    rows.map((r) => r.values.external_id ?? ''),
  );
  const work: Work[] = [];
  for (const row of rows) {
    const before = check.errors.length;
    const key = check.key(row, seen);
    const customerRef = check.text(row, 'customer_external_id', { isRequired: true, max: 100 });
    const customer = customerRef ? customers.get(customerRef) : undefined;
    if (customerRef && !customer)
      check.fail(row.line, 'customer_external_id', 'dataimport.unknownCustomer', { value: customerRef });
    const productCode = check.text(row, 'product', { isRequired: true, max: 100 });
    const product = productCode ? products.get(productCode) : undefined;
    if (productCode && !product) check.fail(row.line, 'product', 'dataimport.unknownProduct', { value: productCode });
    const currency = product ? currencyCode(String(product.currency)) : ctx.currency;
    const principal = check.money(row, 'principal', currency, { isRequired: true });
    const termText = check.text(row, 'number_of_repayments', { isRequired: true, max: 4 });
    const term = termText !== null && /^\d+$/.test(termText) ? Number(termText) : null;
    if (termText !== null && (term === null || term < 1 || term > 1000))
      check.fail(row.line, 'number_of_repayments', 'dataimport.wholeNumber');
    const rate = check.text(row, 'annual_interest_rate', { max: 12 });
    if (rate !== null && !RATE.test(rate)) check.fail(row.line, 'annual_interest_rate', 'dataimport.rate');
    const disbursedOn = check.date(row, 'disbursed_on', { isRequired: true, max: ctx.today });
    const history: { date: string; amount: bigint }[] = [];
    const historyText = check.text(row, 'repayments', { max: 2000 });
    if (historyText !== null) {
      let last = disbursedOn ?? '';
      for (const part of historyText
        .split(/[|;]/)
        .map((p) => p.trim())
        .filter(Boolean)) {
        const m = /^(\d{4}-\d{2}-\d{2})\s*[=:]\s*(\S+)$/.exec(part);
        const date = m ? parseDateInput(m[1], { max: ctx.today, maxIsBusinessDate: true }) : null;
        let amount: bigint | null;
        try {
          amount = m ? parseMinor(m[2], currencyDigits(currency), 'repayments', { allowZero: false }) : null;
        } catch {
          amount = null;
        }
        if (!m || !date?.ok || amount === null) {
          check.fail(row.line, 'repayments', 'dataimport.history');
          break;
        }
        if (date.date < last) {
          check.fail(row.line, 'repayments', 'dataimport.historyOrder');
          break;
        }
        last = date.date;
        history.push({ date: date.date, amount });
      }
    }
    if (check.errors.length > before || key === null) continue;
    work.push({
      line: row.line,
      key,
      isSkipped: done.has(key),
      date: disbursedOn,
      run: (t) =>
        importLoan(t, ctx, {
          customerId: String(customer!.id),
          productId: String(product!.id),
          principal: principal!,
          term: term!,
          rate,
          disbursedOn: disbursedOn!,
          history,
          key,
        }),
    });
  }
  return { errors: check.errors, work };
}

/**
 * A loan and its history through the engine, at the file's dates. The engine dates a command at the
 * business date or before it, never before the loan's approval; so, as the portfolio simulator does,
 * the tenant's business date is set to the disbursement date (under the tenant row's lock, in this
 * transaction) for the origination, then put back, and the past repayments are dated as the file says.
 */
async function importLoan(
  tx: Tx,
  ctx: Context,
  loan: {
    customerId: string;
    productId: string;
    principal: bigint;
    term: number;
    rate: string | null;
    disbursedOn: string;
    history: { date: string; amount: bigint }[];
    key: string;
  },
): Promise<string> {
  const [tenant] = await tx.query<Pick<TenantsRow, 'business_date'>>(
    `select business_date from tenants where id = $1 for update`,
    [ctx.actor.tenantId],
  );
  const today = tenant.business_date;
  await tx.query(`update tenants set business_date = $2 where id = $1`, [ctx.actor.tenantId, loan.disbursedOn]);
  const { application, loanId } = await submitApplication(tx, ctx.actor, {
    customerId: loan.customerId,
    productId: loan.productId,
    principal: loan.principal,
    numberOfRepayments: loan.term,
    ...(loan.rate ? { annualInterestRate: loan.rate } : {}),
    expectedDisbursementDate: loan.disbursedOn,
    formData: { source: 'import', importId: ctx.importId, externalId: loan.key },
  });
  const checker: Actor = { tenantId: ctx.actor.tenantId, userId: IMPORT_CHECKER, isAdmin: true, kind: 'system' };
  await approveApplication(tx, checker, application.id, 'Imported: approved in the source system');
  await disburseLoan(tx, ctx.actor, { loanId, date: loan.disbursedOn });
  await tx.query(`update tenants set business_date = $2 where id = $1`, [ctx.actor.tenantId, today]);
  for (const r of loan.history)
    await repayLoan(tx, ctx.actor, { loanId, amount: r.amount, date: r.date, note: 'Imported repayment' });
  return loanId;
}

async function prepareRepayments(tx: Tx, ctx: Context, rows: Row[]): Promise<Prepared> {
  const check = new Checker(ctx.mapping);
  const seen = new Map<string, number>();
  const refs = rows.map((r) => r.values.loan ?? '');
  const byKey = await lookup(
    tx,
    `select k.natural_key as k, l.id, l.currency from data_import_keys k join loans l on l.id = k.object_id
      where k.kind = 'loan' and k.natural_key = any($1::text[])`,
    refs,
  );
  const byAccount = await lookup(
    tx,
    `select account_no as k, id, currency from loans where account_no = any($1::text[])`,
    refs,
  );
  const done = await importedKeys(
    tx,
    'repayments',
    rows.map((r) => r.values.external_id ?? ''),
  );
  const work: Work[] = [];
  for (const row of rows) {
    const before = check.errors.length;
    const key = check.key(row, seen);
    const ref = check.text(row, 'loan', { isRequired: true, max: 100 });
    const loan = ref ? (byKey.get(ref) ?? byAccount.get(ref)) : undefined;
    if (ref && !loan) check.fail(row.line, 'loan', 'dataimport.unknownLoan', { value: ref });
    const amount = check.money(row, 'amount', loan ? currencyCode(String(loan.currency)) : ctx.currency, {
      isRequired: true,
    });
    const date = check.date(row, 'date', { isRequired: true, max: ctx.today });
    const note = check.text(row, 'note', { max: 500 });
    if (check.errors.length > before || key === null) continue;
    work.push({
      line: row.line,
      key,
      isSkipped: done.has(key),
      date,
      run: async (t) => {
        const result = await repayLoan(t, ctx.actor, { loanId: String(loan!.id), amount: amount!, date: date!, note });
        return (result as { transaction: { id: string } }).transaction.id;
      },
    });
  }
  // Each loan's repayments in date order (the engine refuses one dated before the loan's last).
  work.sort((a, b) => (a.date! < b.date! ? -1 : a.date! > b.date! ? 1 : a.line - b.line));
  return { errors: check.errors, work };
}

type BankLine = {
  customerId: string;
  date: string;
  amount: bigint;
  balance: bigint | null;
  description: string;
  category: string;
};

async function prepareBankTransactions(tx: Tx, ctx: Context, rows: Row[]): Promise<Prepared> {
  const check = new Checker(ctx.mapping);
  const seen = new Map<string, number>();
  const customers = await customersInScope(
    tx,
    ctx,
    rows.map((r) => r.values.customer_external_id ?? ''),
  );
  const done = await importedKeys(
    tx,
    'bank_transactions',
    rows.map((r) => r.values.external_id ?? ''),
  );
  const work: Work[] = [];
  const lines = new Map<string, BankLine>();
  for (const row of rows) {
    const before = check.errors.length;
    const key = check.key(row, seen);
    const ref = check.text(row, 'customer_external_id', { isRequired: true, max: 100 });
    const customer = ref ? customers.get(ref) : undefined;
    if (ref && !customer) check.fail(row.line, 'customer_external_id', 'dataimport.unknownCustomer', { value: ref });
    const date = check.date(row, 'date', { isRequired: true, max: ctx.today });
    const amount = check.money(row, 'amount', ctx.currency, { isRequired: true, allowNegative: true });
    const balance = check.money(row, 'balance', ctx.currency, { allowNegative: true });
    const description = check.text(row, 'description', { max: 500 }) ?? '';
    const category = check.text(row, 'category', { max: 50 }) ?? 'other';
    if (check.errors.length > before || key === null) continue;
    if (!done.has(key))
      lines.set(key, {
        customerId: String(customer!.id),
        date: date!,
        amount: amount!,
        balance,
        description,
        category,
      });
    // Bank lines are written together per customer after the loop (balances continue from the last known one).
    work.push({ line: row.line, key, isSkipped: done.has(key), date, run: async () => null });
  }
  return { errors: check.errors, work, lines };
}

async function writeBankLines(tx: Tx, ctx: Context, lines: Map<string, BankLine>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const byCustomer = new Map<string, [string, BankLine][]>();
  for (const entry of lines)
    byCustomer.set(entry[1].customerId, [...(byCustomer.get(entry[1].customerId) ?? []), entry]);
  for (const [customerId, entries] of byCustomer) {
    entries.sort((a, b) => (a[1].date < b[1].date ? -1 : a[1].date > b[1].date ? 1 : 0));
    const [last] = await tx.query<Pick<CustomerBankTransactionsRow, 'balance_after'>>(
      `select balance_after from customer_bank_transactions where customer_id = $1 and booked_on <= $2 order by booked_on desc, balance_after limit 1`,
      [customerId, entries[0][1].date],
    );
    let balance = last?.balance_after ?? 0n;
    const balances = entries.map(([, l]) => (balance = l.balance ?? balance + l.amount));
    const inserted = await tx.query<{ id: string }>(
      `insert into customer_bank_transactions (tenant_id, customer_id, booked_on, currency, amount, balance_after, category, description, source)
       select $1, $2, d, $3, a, b, c, t, 'import'
         from unnest($4::date[], $5::int8[], $6::int8[], $7::text[], $8::text[]) with ordinality as r(d, a, b, c, t, n)
        order by n returning id`,
      [
        ctx.actor.tenantId,
        customerId,
        ctx.currency,
        entries.map(([, l]) => l.date),
        entries.map(([, l]) => l.amount.toString()),
        balances.map((b) => b.toString()),
        entries.map(([, l]) => l.category),
        entries.map(([, l]) => l.description),
      ],
    );
    entries.forEach(([key], i) => ids.set(key, inserted[i]?.id));
    await refreshMonthlyMetrics(tx, ctx.actor.tenantId, customerId, [
      ...new Set(entries.map(([, l]) => `${l.date.slice(0, 7)}-01`)),
    ]);
    await recordAudit(tx, {
      tenantId: ctx.actor.tenantId,
      actorId: ctx.actor.userId,
      actorKind: ctx.actor.kind ?? 'user',
      action: 'customer.bank_transactions.import',
      objectType: 'customer',
      objectId: customerId,
      after: { importId: ctx.importId, rowCount: entries.length },
      ip: ctx.actor.ip,
      requestId: ctx.actor.requestId,
      outcome: 'success',
    });
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------

/** Which required fields the mapping leaves out (a 400 naming `mapping.<field>`). */
export function assertMappingComplete(kind: ImportKind, headers: readonly string[], mapping: ColumnMapping): void {
  for (const field of KIND_FIELDS[kind]) {
    const header = mapping[field.name];
    if (header && !headers.includes(header))
      throw new AppError('BAD_REQUEST', `mapping.${field.name} names a column the file does not have`, {
        field: `mapping.${field.name}`,
        details: { messageKey: 'unknownColumn', params: { column: header } },
      });
    if (field.isRequired && !header)
      throw new AppError('BAD_REQUEST', `mapping.${field.name} is required: choose the column it is read from`, {
        field: `mapping.${field.name}`,
        details: { messageKey: 'unmapped', params: { field: field.name } },
      });
  }
}

function translateFailure(error: unknown, line: number, mapping: ColumnMapping, fallbackField: string): RowError {
  const check = new Checker(mapping);
  if (error instanceof AppError && error.status < 500) {
    const field = (error.field && COMMAND_FIELDS[error.field.split('.').pop()!]) ?? fallbackField;
    if (error.key) return rowError(line, check.column(field), error.key, (error.params ?? {}) as never);
    return { row: line, column: check.column(field), key: null, params: {}, message: error.message };
  }
  const code = (error as { code?: unknown })?.code;
  if (code === '23505' || code === '23503' || code === '23514')
    return rowError(line, check.column(fallbackField), 'dataimport.conflict');
  throw error;
}

/**
 * Checks and (for a commit) writes the rows of one file. `commit`: one transaction, all or nothing.
 * Never throws for a faulty row: the outcome lists the faults and nothing is written.
 */
export async function executeImport(
  db: Db,
  actor: Actor,
  spec: {
    importId: string;
    kind: ImportKind;
    file: ParsedFile;
    mapping: ColumnMapping;
    mode: 'dry_run' | 'commit';
    onProgress?: ProgressFn;
  },
): Promise<ImportOutcome> {
  const { kind, file, mapping } = spec;
  assertMappingComplete(kind, file.headers, mapping);
  const rows = rowsOf(kind, file, mapping);
  const total = rows.length;
  const empty: ImportOutcome = {
    total,
    created: 0,
    skipped: 0,
    errors: [],
    errorCount: 0,
    firstDate: null,
    lastDate: null,
  };
  try {
    return await db.tenant(actor.tenantId, async (tx) => {
      // One import of a kind at a time per tenant: a second one waits, then sees the first one's keys,
      // so two uploads of the same file at once cannot both create its rows.
      await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`data-import:${actor.tenantId}:${kind}`]);
      const [tenant] = await tx.query<Pick<TenantsRow, 'currency'>>(`select currency from tenants where id = $1`, [
        actor.tenantId,
      ]);
      const ctx: Context = {
        actor,
        today: await businessDate(tx, actor.tenantId),
        currency: currencyCode(tenant.currency),
        mapping,
        importId: spec.importId,
      };
      const prepared =
        kind === 'customers'
          ? await prepareCustomers(tx, ctx, rows)
          : kind === 'loans'
            ? await prepareLoans(tx, ctx, rows)
            : kind === 'repayments'
              ? await prepareRepayments(tx, ctx, rows)
              : await prepareBankTransactions(tx, ctx, rows);
      if (prepared.errors.length) {
        const errors = [...prepared.errors].sort((a, b) => a.row - b.row);
        return { ...empty, errors: errors.slice(0, MAX_REPORTED_ERRORS), errorCount: errors.length };
      }
      const outcome = { ...empty };
      const keys: { key: string; objectId: string | null }[] = [];
      let n = 0;
      for (const item of prepared.work) {
        n++;
        if (item.isSkipped) outcome.skipped++;
        else {
          let objectId: string | null;
          try {
            objectId = await item.run(tx);
          } catch (error) {
            throw new RowFailure(
              translateFailure(error, item.line, mapping, kind === 'repayments' ? 'amount' : 'external_id'),
            );
          }
          keys.push({ key: item.key, objectId });
          outcome.created++;
          if (item.date) {
            if (!outcome.firstDate || item.date < outcome.firstDate) outcome.firstDate = item.date;
            if (!outcome.lastDate || item.date > outcome.lastDate) outcome.lastDate = item.date;
          }
        }
        if (spec.onProgress && (n % 250 === 0 || n === total)) await spec.onProgress(n, total);
      }
      if (prepared.lines?.size) {
        const ids = await writeBankLines(tx, ctx, prepared.lines);
        for (const k of keys) k.objectId = ids.get(k.key) ?? null;
        for (const l of prepared.lines.values()) {
          if (!outcome.firstDate || l.date < outcome.firstDate) outcome.firstDate = l.date;
          if (!outcome.lastDate || l.date > outcome.lastDate) outcome.lastDate = l.date;
        }
      }
      for (let i = 0; i < keys.length; i += 5000) {
        const chunk = keys.slice(i, i + 5000);
        await tx.query(
          `insert into data_import_keys (tenant_id, kind, natural_key, object_id, import_id)
           select $1, $2, k, o, $3 from unnest($4::text[], $5::uuid[]) as r(k, o)
           on conflict do nothing`,
          [actor.tenantId, KEY_KIND[kind], spec.importId, chunk.map((k) => k.key), chunk.map((k) => k.objectId)],
        );
      }
      if (spec.mode === 'dry_run') throw new DryRunDone(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof DryRunDone) return error.outcome;
    if (error instanceof RowFailure) return { ...empty, errors: [error.error], errorCount: 1 };
    throw error;
  }
}

import { AppError } from '../errors/app-error.ts';
import { currencyDigits, parseMinor } from '../money/money.ts';

/**
 * Bank-statement CSV (profile "bank-statements"). One header row naming the columns, in any
 * order and case: `date` (YYYY-MM-DD, required), `amount` (decimal, signed: positive = money in,
 * required), `description`, `category`, `balance` (the balance after the row, decimal). Comma or
 * semicolon separated, RFC 4180 quoting. A UTF-8 BOM is ignored. Either every row is valid and the
 * statement is imported, or nothing is and every faulty row is reported (row number as in the file,
 * header = row 1, and the column at fault).
 */
export type StatementRow = {
  line: number;
  bookedOn: string;
  amount: bigint;
  description: string;
  category: string;
  balance: bigint | null;
};
export type RowError = { row: number; field: string; message: string };
export type ParsedStatement = { rows: StatementRow[]; errors: RowError[] };

export const MAX_STATEMENT_ROWS = 20_000;

/** Splits CSV text into records of fields (quotes may span lines). */
export function splitCsv(text: string, separator: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === separator) {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const CATEGORY = /^[a-z][a-z0-9_]{0,39}$/;

export function parseStatementCsv(text: string, currency: string): ParsedStatement {
  const digits = currencyDigits(currency);
  const clean = text.replace(/^\uFEFF/, '');
  const firstLine = clean.split(/\r?\n/, 1)[0] ?? '';
  const separator = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const records = splitCsv(clean, separator);
  const header = (records[0] ?? []).map((h) => h.trim().toLowerCase());
  const errors: RowError[] = [];
  const col = (name: string) => header.indexOf(name);
  for (const name of ['date', 'amount']) {
    if (col(name) < 0) errors.push({ row: 1, field: name, message: `The header has no '${name}' column` });
  }
  if (errors.length) return { rows: [], errors };
  const rows: StatementRow[] = [];
  for (let r = 1; r < records.length; r++) {
    const cells = records[r];
    const line = r + 1;
    if (cells.every((c) => c.trim() === '')) continue;
    const get = (name: string) => (col(name) >= 0 ? (cells[col(name)] ?? '').trim() : '');
    const before = errors.length;
    const date = get('date');
    if (!isCalendarDate(date))
      errors.push({ row: line, field: 'date', message: 'date must be a calendar date YYYY-MM-DD' });
    const money = (name: string, required: boolean): bigint | null => {
      const value = get(name);
      if (!value) {
        if (required) errors.push({ row: line, field: name, message: `${name} is required` });
        return null;
      }
      try {
        return parseMinor(value, digits, name);
      } catch (error) {
        errors.push({
          row: line,
          field: name,
          message: error instanceof AppError ? error.message : `${name} is not a number`,
        });
        return null;
      }
    };
    const amount = money('amount', true);
    if (amount === 0n) errors.push({ row: line, field: 'amount', message: 'amount must not be zero' });
    const balance = money('balance', false);
    const category = (get('category') || (amount !== null && amount > 0n ? 'inflow' : 'outflow')).toLowerCase();
    if (!CATEGORY.test(category))
      errors.push({
        row: line,
        field: 'category',
        message: 'category must be a lower-case word such as salary or rent',
      });
    const description = get('description').slice(0, 500);
    if (errors.length === before && amount !== null)
      rows.push({ line, bookedOn: date, amount, description, category, balance });
  }
  if (rows.length + errors.length === 0)
    errors.push({ row: 2, field: 'date', message: 'The statement has no transactions' });
  if (records.length - 1 > MAX_STATEMENT_ROWS)
    errors.push({
      row: MAX_STATEMENT_ROWS + 2,
      field: 'date',
      message: `A statement may have at most ${MAX_STATEMENT_ROWS} rows`,
    });
  return { rows: errors.length ? [] : rows, errors };
}

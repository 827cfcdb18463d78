import { fromMinor, toDecimalString } from '../money/money.ts';
import { optionLabel, type ColumnDef } from '../lists/definition.ts';
import type { ListRow } from '../lists/query.ts';

/**
 * Cells of an exported row. Text that a spreadsheet would run as a formula is neutralised (OWASP
 * "CSV injection"): a cell starting with = + - @ tab or carriage return gets a leading single quote,
 * so Excel, LibreOffice and Sheets show it as text. Numbers, money and dates are written by us from
 * typed values (never from user text), so they stay numbers a spreadsheet can add up.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

export function neutralise(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A typed cell: what the XLSX writer stores, and the exact text the CSV writer writes. */
export type ExportCell =
  | { kind: 'text'; text: string }
  /** Exact decimal text plus its digits, so money is written to the cent, never via a float sum. */
  | { kind: 'number'; text: string; digits: number }
  | { kind: 'date'; text: string }
  | { kind: 'empty' };

export type Translate = (key: string) => string;

function numberText(value: unknown): string | null {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return value;
  return null;
}

export function toCell(column: ColumnDef, row: ListRow, tenantCurrency: string, t: Translate): ExportCell {
  const value = row.values[column.key];
  if (value === null || value === undefined) return { kind: 'empty' };
  switch (column.type) {
    case 'money': {
      if (typeof value !== 'bigint' && typeof value !== 'number' && typeof value !== 'string') return { kind: 'empty' };
      const money = fromMinor(BigInt(value), row.currencies[column.key] ?? tenantCurrency);
      return { kind: 'number', text: toDecimalString(money), digits: money.digits };
    }
    case 'number': {
      const text = numberText(value);
      if (text === null) return { kind: 'text', text: neutralise(String(value)) };
      return { kind: 'number', text, digits: text.includes('.') ? text.split('.')[1]!.length : 0 };
    }
    case 'date':
      return { kind: 'date', text: String(value) };
    case 'timestamp':
      return { kind: 'text', text: value instanceof Date ? value.toISOString() : neutralise(String(value)) };
    case 'boolean':
      return { kind: 'text', text: t(value ? 'lists:common.yes' : 'lists:common.no') };
    case 'enum': {
      const label = optionLabel(t, column, String(value));
      return { kind: 'text', text: neutralise(label) };
    }
    case 'text':
      return { kind: 'text', text: neutralise(String(value)) };
  }
}

/** The text of a cell as written into CSV. */
export function cellText(cell: ExportCell): string {
  return cell.kind === 'empty' ? '' : cell.text;
}

import type { TFunction } from 'i18next';
import { optionLabel, type ColumnDef } from '#lib/lists/definition.ts';
import type { ListRow } from '#lib/lists/query.ts';
import { formatDate, formatDateTime, formatNumber } from '#lib/i18n/format.ts';
import type { Language } from '#lib/i18n/index.ts';
import { formatMoney, fromMinor } from '#lib/money/money.ts';

/** A cell's text on the server-rendered table, in the user's language (money to the cent). */
export function formatCell(
  column: ColumnDef,
  row: ListRow,
  ctx: { t: TFunction; language: Language; currency: string; timeZone?: string },
): string {
  const value = row.values[column.key];
  if (value === null || value === undefined || value === '') return '—';
  switch (column.type) {
    case 'money':
      return formatMoney(
        fromMinor(BigInt(value as bigint | string | number), row.currencies[column.key] ?? ctx.currency),
        ctx.language,
      );
    case 'date':
      return formatDate(String(value), ctx.language);
    case 'timestamp':
      return formatDateTime(value as Date, ctx.language, ctx.timeZone);
    case 'number':
      return typeof value === 'number' || typeof value === 'bigint' ? formatNumber(value, ctx.language) : String(value);
    case 'boolean':
      return ctx.t(value ? 'lists:common.yes' : 'lists:common.no');
    case 'enum':
      return optionLabel(ctx.t, column, String(value));
    case 'text':
      return String(value);
  }
}

export function isNumeric(column: ColumnDef): boolean {
  return column.type === 'money' || column.type === 'number';
}

import ExcelJS from 'exceljs';
import { neutralise } from './cells.ts';
import { csvField } from './csv-writer.ts';

/**
 * A small table shown on a board, downloaded as it is shown (`?format=csv|xlsx`): the boards of the
 * loans and analytics sections. Large lists go through the export jobs instead (src/lib/exports).
 * Text cells are neutralised against spreadsheet formulas; `{ decimal }` cells are amounts kept
 * exact as decimal strings in CSV and written as numbers in XLSX.
 */
export type ExportValue = string | number | { decimal: string } | null;
export type ExportTable = { headers: string[]; rows: ExportValue[][] };

export const TABLE_FORMATS = ['csv', 'xlsx'] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

export function isTableFormat(value: string | null | undefined): value is TableFormat {
  return value === 'csv' || value === 'xlsx';
}

/** RFC 4180 CSV with a byte-order mark (the list exports' conventions). */
export function toCsv(table: ExportTable): string {
  const cell = (v: ExportValue) =>
    v === null ? '' : typeof v === 'object' ? v.decimal : csvField(typeof v === 'string' ? neutralise(v) : String(v));
  return '\uFEFF' + [table.headers, ...table.rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

export async function toXlsx(table: ExportTable, sheetName: string): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31) || 'Sheet1');
  sheet.addRow(table.headers.map((h) => neutralise(h))).font = { bold: true };
  for (const row of table.rows)
    sheet.addRow(
      row.map((v) =>
        v !== null && typeof v === 'object' ? Number(v.decimal) : typeof v === 'string' ? neutralise(v) : v,
      ),
    );
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The download response of a table: `name` without extension (letters, digits, dashes). */
export async function tableDownload(
  table: ExportTable,
  format: TableFormat,
  name: string,
  sheetName: string,
): Promise<Response> {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const body = format === 'csv' ? toCsv(table) : new Uint8Array(await toXlsx(table, sheetName));
  return new Response(body, {
    headers: {
      'content-type':
        format === 'csv'
          ? 'text/csv; charset=utf-8'
          : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'content-disposition': `attachment; filename="${safe}.${format}"`,
      'cache-control': 'no-store',
    },
  });
}

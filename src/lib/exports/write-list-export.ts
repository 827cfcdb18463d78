import { countRows, iterateRows, type ListQueryOptions, type RunInTx } from '../lists/query.ts';
import { columnLabel, visibleColumns, type ListDef } from '../lists/definition.ts';
import type { ListState } from '../lists/url-state.ts';
import { toCell, type Translate } from './cells.ts';
import { openCsvWriter } from './csv-writer.ts';
import { openXlsxWriter } from './xlsx-writer.ts';

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export type WriteListExportInput = {
  run: RunInTx;
  def: ListDef;
  /** The list state of the page the user exported from: tab, filters, search, sort, columns. */
  state: ListState;
  options: ListQueryOptions;
  format: ExportFormat;
  filePath: string;
  tenantCurrency: string;
  t: Translate;
  /** Sheet name of the XLSX (the list's title). */
  title: string;
  batchSize?: number;
  onProgress?: (done: number, total: number) => Promise<void>;
  signal?: AbortSignal;
};

/**
 * Writes every row matching a list state (not only the page on screen) to one CSV or XLSX file,
 * batch by batch, reporting progress after each batch. On any failure the partial file is removed.
 */
export async function writeListExport(input: WriteListExportInput): Promise<{ rows: number; total: number }> {
  const columns = visibleColumns(input.def, input.state.columns);
  const total = await input.run((tx) => countRows(tx, input.def, input.state, input.options));
  const writer = input.format === 'csv' ? openCsvWriter(input.filePath) : openXlsxWriter(input.filePath, input.title);
  let rows = 0;
  try {
    await writer.writeHeader(columns.map((c) => columnLabel(input.t, c)));
    await input.onProgress?.(0, total);
    for await (const batch of iterateRows(
      input.run,
      input.def,
      input.state,
      input.options,
      input.batchSize ?? 1_000,
      columns,
    )) {
      input.signal?.throwIfAborted();
      for (const row of batch) await writer.writeRow(columns.map((c) => toCell(c, row, input.tenantCurrency, input.t)));
      rows += batch.length;
      // Rows added while the export runs can make the count grow; progress never passes 100%.
      await input.onProgress?.(rows, Math.max(total, rows));
    }
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { rows, total };
}

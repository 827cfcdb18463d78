import fs from 'node:fs';
import ExcelJS from 'exceljs';
import { neutralise, type ExportCell } from './cells.ts';

/**
 * XLSX streamed to a file with exceljs's streaming writer: each row is committed (flushed) as it is
 * added, so a 50,000-row sheet never sits in memory. Numbers are real numeric cells with a format of
 * their own decimals; dates are date cells; text is inline text (no shared-strings table to grow).
 */
export type XlsxWriter = {
  writeHeader(labels: readonly string[]): Promise<void>;
  writeRow(cells: readonly ExportCell[]): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
};

function numFmt(digits: number): string {
  return digits > 0 ? `0.${'0'.repeat(digits)}` : '0';
}

export function openXlsxWriter(filePath: string, sheetName: string): XlsxWriter {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: filePath,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31).replace(/[\\/?*[\]:]/g, ' ') || 'Export');
  return {
    async writeHeader(labels) {
      const row = sheet.addRow(labels.map((l) => neutralise(l)));
      row.font = { bold: true };
      row.commit();
    },
    async writeRow(cells) {
      const row = sheet.addRow(
        cells.map((cell) => {
          switch (cell.kind) {
            case 'empty':
              return null;
            case 'text':
              return cell.text;
            case 'number':
              return Number(cell.text);
            case 'date':
              return new Date(`${cell.text}T00:00:00Z`);
          }
        }),
      );
      cells.forEach((cell, i) => {
        if (cell.kind === 'number') row.getCell(i + 1).numFmt = numFmt(cell.digits);
        if (cell.kind === 'date') row.getCell(i + 1).numFmt = 'yyyy-mm-dd';
      });
      row.commit();
    },
    async close() {
      sheet.commit();
      await workbook.commit();
    },
    async abort() {
      try {
        sheet.commit();
        await workbook.commit();
      } catch {
        // The file is being thrown away; a failure to finish it does not matter.
      }
      await fs.promises.rm(filePath, { force: true });
    },
  };
}

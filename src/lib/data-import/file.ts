import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { AppError } from '../errors/app-error.ts';
import { inspectZip } from '../http/zip-guard.ts';

/**
 * An import file read into a header and rows of text. The type is decided by the content, never by
 * the name: a zip (PK\x03\x04) must be a workbook ExcelJS can open (after the zip-bomb check), anything
 * else must be UTF-8 text without NUL bytes (CSV). CSV: a UTF-8 BOM is dropped, the delimiter is `;`
 * or `,` (whichever the header line has more of), RFC 4180 quotes. Cells are kept as text exactly as
 * written: `=cmd|…` stays a string (nothing is evaluated, and a workbook's formula gives its cached
 * result, or its formula text when it has none).
 */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;
const MAX_COLUMNS = 100;
const MAX_CELL = 2000;
const XLSX_MAX_ENTRIES = 500;
const XLSX_MAX_INFLATED = 200 * 1024 * 1024;

export type FileType = 'csv' | 'xlsx';
export type ParsedFile = {
  type: FileType;
  headers: string[];
  /** Data rows, each with its row number in the file (the header is row 1). */
  rows: { line: number; cells: string[] }[];
};

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A display-safe file name kept as text: folders, control characters and quotes dropped, at most 200 characters. */
export function cleanImportFileName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return base && base !== '.' && base !== '..' ? base : 'upload';
}

const wrongType = () =>
  new AppError('BAD_REQUEST', 'file must be a CSV (UTF-8 text) or an XLSX workbook', {
    field: 'file',
    details: { messageKey: 'wrongType' },
  });

export function detectType(bytes: Uint8Array): FileType {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04)
    return 'xlsx';
  if (bytes.includes(0)) throw wrongType();
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw wrongType();
  }
  return 'csv';
}

export async function parseImportFile(bytes: Uint8Array): Promise<ParsedFile> {
  if (bytes.byteLength === 0)
    throw new AppError('BAD_REQUEST', 'file is empty', { field: 'file', details: { messageKey: 'emptyFile' } });
  const type = detectType(bytes);
  const table = type === 'csv' ? readCsv(bytes) : await readXlsx(bytes);
  const [header, ...rest] = table;
  const headers = (header?.cells ?? []).map((h) => h.trim());
  if (!headers.length || headers.every((h) => h === ''))
    throw new AppError('BAD_REQUEST', 'file has no header row', { field: 'file', details: { messageKey: 'noHeader' } });
  if (headers.length > MAX_COLUMNS)
    throw new AppError('BAD_REQUEST', `file has more than ${MAX_COLUMNS} columns`, { field: 'file' });
  const rows = rest.filter((r) => r.cells.some((c) => c.trim() !== ''));
  if (rows.length > MAX_IMPORT_ROWS)
    throw new AppError('BAD_REQUEST', `file has more than ${MAX_IMPORT_ROWS} rows`, {
      field: 'file',
      details: { messageKey: 'tooManyRows', params: { max: MAX_IMPORT_ROWS } },
    });
  return { type, headers, rows };
}

function readCsv(bytes: Uint8Array): { line: number; cells: string[] }[] {
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const count = (c: string) => firstLine.split(c).length - 1;
  const delimiter = count(';') > count(',') ? ';' : ',';
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      info: true,
      cast: false,
    }) as never;
  } catch (error) {
    throw new AppError('BAD_REQUEST', `file is not valid CSV: ${(error as Error).message.slice(0, 200)}`, {
      field: 'file',
      details: { messageKey: 'badCsv' },
    });
  }
  // The row number is the record's position (header = 1), as a spreadsheet shows it.
  return records.map((r, i) => ({ line: i + 1, cells: r.record.map((c) => String(c).slice(0, MAX_CELL)) }));
}

function cellText(cell: ExcelJS.Cell): string {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    if ('result' in v && v.result !== undefined && v.result !== null)
      return v.result instanceof Date ? v.result.toISOString().slice(0, 10) : String(v.result);
    if ('formula' in v) return `=${String(v.formula)}`;
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v) return String(v.text);
    if ('error' in v) return String(v.error);
    return '';
  }
  return String(v);
}

async function readXlsx(bytes: Uint8Array): Promise<{ line: number; cells: string[] }[]> {
  const zip = inspectZip(bytes, { maxEntries: XLSX_MAX_ENTRIES, maxTotalBytes: XLSX_MAX_INFLATED });
  if (!zip.ok) throw wrongType();
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  } catch {
    throw wrongType();
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw wrongType();
  const width = Math.min(sheet.columnCount, MAX_COLUMNS + 1);
  const out: { line: number; cells: string[] }[] = [];
  for (let n = 1; n <= sheet.rowCount; n++) {
    const row = sheet.getRow(n);
    const cells: string[] = [];
    for (let c = 1; c <= width; c++) cells.push(cellText(row.getCell(c)).slice(0, MAX_CELL));
    out.push({ line: n, cells });
  }
  return out;
}

/**
 * Holidays from a file: a CSV (header `name,from,to[,branch][,rescheduled_to][,rescheduling_type]`, dates
 * YYYY-MM-DD, branch by its code, rescheduling type one of RESCHEDULING_TYPES in any case, empty = what
 * the date implies, as for the API) or an iCalendar file (.ics) of all-day events (their type follows
 * the rule). All or nothing: one bad line
 * refuses the whole file, naming the line (and every other bad line, up to 50), and nothing is added.
 * A dry run returns what would be added and what is already there; importing the same file twice adds
 * nothing the second time (a holiday with the same name, dates and place is "already present").
 *
 * The iCalendar reader is small and strict on purpose (RFC 5545 subset): one VCALENDAR holding only
 * VEVENTs, each with an all-day DTSTART (a DATE, YYYYMMDD), an optional all-day DTEND (exclusive, so
 * the holiday ends the day before; without it the event is one day) and a SUMMARY (the name).
 * Recurrences (RRULE, RDATE, EXDATE), durations, times, time zones, alarms, other components and
 * cancelled events are refused rather than guessed at.
 */
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { auditSuccess } from '../lending/commands/common.ts';
import { addDays, isValidDate } from '../schedule/dates.ts';
import { listBranches, listHolidays, isUuid } from './calendar.ts';
import {
  assertBranch,
  checkHolidayFields,
  insertHoliday,
  lockDaysOff,
  tFor,
  type CheckedHoliday,
  type HolidayInput,
} from './commands.ts';

type T = Awaited<ReturnType<typeof tFor>>;

export const MAX_IMPORT_CHARS = 200_000;
export const MAX_IMPORT_ROWS = 1000;
const MAX_REPORTED = 50;

export type ImportFormat = 'csv' | 'ics';

/** One holiday read from a file, with the line it starts on and its branch code as written. */
export type ImportRow = { line: number; input: HolidayInput; branchCode: string | null };

export type LineError = { row: number; field: string; message: string };

class LineErrors {
  readonly list: LineError[] = [];
  add(row: number, field: string, message: string) {
    if (this.list.length < MAX_REPORTED) this.list.push({ row, field, message });
  }
}

function refuse(t: T, errors: LineError[]): AppError {
  const first = errors[0];
  return new AppError(
    'BAD_REQUEST',
    t('daysoff:import.refused', { line: first.row, message: first.message, count: errors.length }),
    { field: 'file', details: { rows: errors } },
  );
}

const CSV_COLUMNS: Record<string, keyof Omit<HolidayInput, 'branchId'> | 'branch'> = {
  name: 'name',
  from: 'from',
  to: 'to',
  branch: 'branch',
  branch_code: 'branch',
  rescheduled_to: 'repaymentsRescheduledTo',
  repayments_rescheduled_to: 'repaymentsRescheduledTo',
  rescheduling_type: 'reschedulingType',
};

/** Reads a holidays CSV (see the header). Throws a 400 naming the lines it cannot read. */
export function parseHolidayCsv(t: T, content: string): ImportRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(content, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: false,
      trim: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const line = Number((error as { lines?: number }).lines ?? 1) || 1;
    throw refuse(t, [{ row: line, field: 'file', message: t('daysoff:import.csvUnreadable') }]);
  }
  if (records.length === 0) throw refuse(t, [{ row: 1, field: 'file', message: t('daysoff:import.empty') }]);
  const header = records[0].record.map((h) => h.toLowerCase());
  const columns = header.map((h) => CSV_COLUMNS[h]);
  const errors = new LineErrors();
  header.forEach((h, i) => {
    if (!columns[i]) errors.add(1, 'file', t('daysoff:import.unknownColumn', { column: h.slice(0, 40) }));
  });
  for (const needed of ['name', 'from', 'to'] as const)
    if (!columns.includes(needed)) errors.add(1, 'file', t('daysoff:import.missingColumn', { column: needed }));
  if (new Set(columns).size !== columns.length) errors.add(1, 'file', t('daysoff:import.repeatedColumn'));
  if (errors.list.length) throw refuse(t, errors.list);
  if (records.length - 1 > MAX_IMPORT_ROWS)
    throw refuse(t, [{ row: 1, field: 'file', message: t('daysoff:import.tooManyRows', { max: MAX_IMPORT_ROWS }) }]);
  return records.slice(1).map(({ record, info }) => {
    const value = (column: string) => {
      const i = columns.indexOf(column as never);
      return i < 0 ? '' : (record[i] ?? '');
    };
    return {
      // info.lines is the line the record ends on; a record spans one line unless a quoted field breaks it.
      line: info.lines - record.reduce((n, field) => n + (field.match(/\r\n|\n|\r/g)?.length ?? 0), 0),
      input: {
        name: value('name'),
        from: value('from'),
        to: value('to'),
        repaymentsRescheduledTo: value('repaymentsRescheduledTo') || null,
        reschedulingType: value('reschedulingType').toUpperCase() || null,
      },
      branchCode: value('branch') || null,
    };
  });
}

const ICS_EVENT_IGNORED = new Set([
  'UID',
  'DTSTAMP',
  'DESCRIPTION',
  'TRANSP',
  'CLASS',
  'SEQUENCE',
  'CREATED',
  'LAST-MODIFIED',
  'CATEGORIES',
  'LOCATION',
  'PRIORITY',
  'URL',
  'ORGANIZER',
  'COMMENT',
]);
const ICS_CALENDAR_IGNORED = new Set(['PRODID', 'METHOD']);

type ContentLine = { line: number; name: string; params: Record<string, string>; value: string };

/** Splits `NAME;PARAM=VALUE;…:value` (a colon inside a quoted parameter value is not the separator). */
function contentLine(text: string, line: number): ContentLine | null {
  let inQuotes = false;
  let colon = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inQuotes = !inQuotes;
    else if (c === ':' && !inQuotes) {
      colon = i;
      break;
    }
  }
  if (colon < 0) return null;
  const [rawName, ...rawParams] = text.slice(0, colon).split(';');
  if (!/^[A-Za-z0-9-]+$/.test(rawName)) return null;
  const params: Record<string, string> = {};
  for (const p of rawParams) {
    const eq = p.indexOf('=');
    if (eq <= 0) return null;
    params[p.slice(0, eq).toUpperCase()] = p.slice(eq + 1).replace(/^"(.*)"$/, '$1');
  }
  return { line, name: rawName.toUpperCase(), params, value: text.slice(colon + 1) };
}

/** TEXT value escapes of RFC 5545 §3.3.11. */
function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? ' ' : c));
}

function icsDate(value: string, params: Record<string, string>): string | null {
  if (params.VALUE !== undefined && params.VALUE.toUpperCase() !== 'DATE') return null;
  if (params.TZID !== undefined) return null;
  if (!/^\d{8}$/.test(value)) return null;
  const date = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
  return isValidDate(date) ? date : null;
}

/** Reads an iCalendar file of all-day holidays (see the header). Throws a 400 naming the lines. */
export function parseHolidayIcs(t: T, content: string): ImportRow[] {
  const physical = content.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  while (physical.length && physical[physical.length - 1] === '') physical.pop();
  const errors = new LineErrors();
  const lines: ContentLine[] = [];
  let current: { text: string; line: number } | null = null;
  const flush = () => {
    if (!current) return;
    const parsed = contentLine(current.text, current.line);
    if (parsed) lines.push(parsed);
    else errors.add(current.line, 'file', t('daysoff:import.icsLine'));
    current = null;
  };
  physical.forEach((text, i) => {
    if ((text.startsWith(' ') || text.startsWith('\t')) && current) current.text += text.slice(1);
    else {
      flush();
      if (text.trim() === '') errors.add(i + 1, 'file', t('daysoff:import.icsBlank'));
      else current = { text, line: i + 1 };
    }
  });
  flush();
  if (errors.list.length) throw refuse(t, errors.list);
  if (!lines.length || lines[0].name !== 'BEGIN' || lines[0].value.toUpperCase() !== 'VCALENDAR')
    throw refuse(t, [{ row: 1, field: 'file', message: t('daysoff:import.icsNotCalendar') }]);

  const rows: ImportRow[] = [];
  let state: 'calendar' | 'event' | 'done' = 'calendar';
  let event: { line: number; start?: string; end?: string; summary?: string; badDate?: boolean } | null = null;
  for (const l of lines.slice(1)) {
    const bad = (key: string, params: Record<string, string | number> = {}) =>
      errors.add(l.line, 'file', t(`daysoff:import.${key}`, params));
    if (state === 'done') {
      bad('icsAfterEnd');
      continue;
    }
    if (state === 'calendar') {
      if (l.name === 'BEGIN' && l.value.toUpperCase() === 'VEVENT') {
        state = 'event';
        event = { line: l.line };
      } else if (l.name === 'BEGIN') bad('icsComponent', { component: l.value.slice(0, 40) });
      else if (l.name === 'END' && l.value.toUpperCase() === 'VCALENDAR') state = 'done';
      else if (l.name === 'VERSION') {
        if (l.value !== '2.0') bad('icsVersion');
      } else if (l.name === 'CALSCALE') {
        if (l.value.toUpperCase() !== 'GREGORIAN') bad('icsCalscale');
      } else if (!ICS_CALENDAR_IGNORED.has(l.name) && !l.name.startsWith('X-'))
        bad('icsProperty', { property: l.name.slice(0, 40) });
      continue;
    }
    const e = event!;
    if (l.name === 'END' && l.value.toUpperCase() === 'VEVENT') {
      if (!e.start && !e.badDate) errors.add(e.line, 'file', t('daysoff:import.icsNoStart'));
      if (e.summary === undefined) errors.add(e.line, 'file', t('daysoff:import.icsNoSummary'));
      if (e.start && e.end && e.end <= e.start) errors.add(e.line, 'file', t('daysoff:import.icsEndBeforeStart'));
      if (e.start && e.summary !== undefined && (!e.end || e.end > e.start))
        rows.push({
          line: e.line,
          input: { name: e.summary, from: e.start, to: e.end ? addDays(e.end, -1) : e.start },
          branchCode: null,
        });
      state = 'calendar';
      event = null;
    } else if (l.name === 'BEGIN') bad('icsComponent', { component: l.value.slice(0, 40) });
    else if (l.name === 'DTSTART' || l.name === 'DTEND') {
      const date = icsDate(l.value, l.params);
      const key = l.name === 'DTSTART' ? 'start' : 'end';
      if (!date) {
        bad('icsAllDay', { property: l.name });
        e.badDate = true;
      } else if (e[key]) bad('icsRepeated', { property: l.name });
      else e[key] = date;
    } else if (l.name === 'SUMMARY') {
      if (e.summary !== undefined) bad('icsRepeated', { property: l.name });
      else e.summary = unescapeText(l.value);
    } else if (l.name === 'STATUS') {
      if (l.value.toUpperCase() === 'CANCELLED') bad('icsCancelled');
    } else if (!ICS_EVENT_IGNORED.has(l.name) && !l.name.startsWith('X-'))
      bad('icsProperty', { property: l.name.slice(0, 40) });
  }
  if (state !== 'done') errors.add(physical.length, 'file', t('daysoff:import.icsUnclosed'));
  if (rows.length > MAX_IMPORT_ROWS) errors.add(1, 'file', t('daysoff:import.tooManyRows', { max: MAX_IMPORT_ROWS }));
  if (errors.list.length)
    throw refuse(
      t,
      errors.list.sort((a, b) => a.row - b.row),
    );
  return rows;
}

/** The format of an uploaded file: by its name's extension, else by its first line. */
export function detectImportFormat(fileName: string, content: string): ImportFormat {
  if (/\.ics$/i.test(fileName)) return 'ics';
  if (/\.csv$/i.test(fileName)) return 'csv';
  return /^\uFEFF?BEGIN:VCALENDAR/i.test(content) ? 'ics' : 'csv';
}

export type ImportPreviewRow = CheckedHoliday & { line: number; branchCode: string | null; isPresent: boolean };

export type ImportOutcome = {
  dryRun: boolean;
  format: ImportFormat;
  rows: ImportPreviewRow[];
  toAdd: number;
  alreadyPresent: number;
  added: number;
};

const keyOf = (h: { branchId: string | null; from: string; to: string; name: string }) =>
  `${h.branchId ?? ''}|${h.from}|${h.to}|${h.name}`;

/** Checks every row (all errors, by line) and marks those already present; writes nothing. */
export async function checkImport(
  tx: Tx,
  t: T,
  format: ImportFormat,
  content: string,
  defaultBranchId: string | null,
): Promise<ImportPreviewRow[]> {
  if (content.length > MAX_IMPORT_CHARS)
    throw new AppError('BAD_REQUEST', t('daysoff:import.tooLarge', { max: MAX_IMPORT_CHARS / 1000 }), {
      field: 'file',
    });
  const parsed = format === 'ics' ? parseHolidayIcs(t, content) : parseHolidayCsv(t, content);
  if (!parsed.length) throw refuse(t, [{ row: 1, field: 'file', message: t('daysoff:import.empty') }]);
  const branches = await listBranches(tx);
  const errors = new LineErrors();
  const seen = new Map<string, number>();
  const rows: ImportPreviewRow[] = [];
  for (const row of parsed) {
    let branchId = defaultBranchId;
    if (row.branchCode !== null) {
      const branch = branches.find((b) => b.code.toLowerCase() === row.branchCode!.toLowerCase());
      if (!branch) {
        errors.add(row.line, 'branch', t('daysoff:import.unknownBranch', { code: row.branchCode.slice(0, 40) }));
        continue;
      }
      branchId = branch.id;
    }
    let checked: CheckedHoliday;
    try {
      checked = checkHolidayFields(t, { ...row.input, branchId });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.add(row.line, error.field ?? 'file', error.message);
      continue;
    }
    const key = keyOf(checked);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      errors.add(row.line, 'name', t('daysoff:import.repeatedRow', { line: earlier }));
      continue;
    }
    seen.set(key, row.line);
    rows.push({
      ...checked,
      line: row.line,
      branchCode: branches.find((b) => b.id === checked.branchId)?.code ?? null,
      isPresent: false,
    });
  }
  if (errors.list.length) throw refuse(t, errors.list);
  const present = new Set((await listHolidays(tx)).map((h) => keyOf({ ...h, branchId: h.branch?.id ?? null })));
  for (const row of rows) row.isPresent = present.has(keyOf(row));
  return rows;
}

export const importHolidaysCommand = defineCommand({
  action: 'days_off.import',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z
    .object({
      format: z.enum(['csv', 'ics']),
      // A little over the limit so the command, not zod, says how large a file may be.
      content: z.string().max(MAX_IMPORT_CHARS + 1),
      dryRun: z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).optional(),
      branchId: z.string().max(64).nullish(),
    })
    .strict(),
  run: async (tx, actor, input, request): Promise<ImportOutcome> => {
    const t = await tFor(request.language);
    const dryRun = input.dryRun === true || input.dryRun === 'true' || input.dryRun === '1';
    const branchId = input.branchId?.trim() || null;
    if (branchId !== null && !isUuid(branchId))
      throw new AppError('BAD_REQUEST', t('daysoff:errors.branchUnknown', { field: t('daysoff:fields.branchId') }), {
        field: 'branchId',
      });
    await assertBranch(tx, t, branchId);
    await lockDaysOff(tx, actor.tenantId);
    const rows = await checkImport(tx, t, input.format, input.content, branchId);
    const fresh = rows.filter((r) => !r.isPresent);
    let added = 0;
    if (!dryRun) {
      for (const row of fresh) if (await insertHoliday(tx, actor.tenantId, row)) added++;
      await auditSuccess(tx, actor, 'days_off.import', 'days_off', 'import', null, {
        format: input.format,
        rows: rows.length,
        added,
        alreadyPresent: rows.length - fresh.length,
      });
    }
    return {
      dryRun,
      format: input.format,
      rows,
      toAdd: fresh.length,
      alreadyPresent: rows.length - fresh.length,
      added,
    };
  },
});

export function importJson(outcome: ImportOutcome) {
  return {
    dryRun: outcome.dryRun,
    format: outcome.format,
    toAdd: outcome.toAdd,
    alreadyPresent: outcome.alreadyPresent,
    added: outcome.added,
    rows: outcome.rows.map((r) => ({
      line: r.line,
      name: r.name,
      from: r.from,
      to: r.to,
      reschedulingType: r.reschedulingType,
      repaymentsRescheduledTo: r.repaymentsRescheduledTo,
      branchCode: r.branchCode,
      status: r.isPresent ? 'present' : outcome.dryRun ? 'new' : 'added',
    })),
  };
}

/**
 * Periods of the performance boards: months as `YYYY-MM` (revenue, portfolio analysis) and ISO weeks
 * as `YYYY-Www` (bullet loans by maturity week). Pure helpers, unit tested in period.test.ts.
 */
import { AppError } from '../../errors/app-error.ts';
import { addDays, addMonths, daysInMonthOf, isoWeekday, isValidDate, makeDate, parts } from '../../schedule/dates.ts';

const MONTH = /^(\d{4})-(\d{2})$/;
const WEEK = /^(\d{4})-W(\d{2})$/;

/** The longest period a board shows (months or weeks). */
export const MAX_MONTHS = 60;
export const MAX_WEEKS = 104;

export function monthOf(date: string): string {
  return date.slice(0, 7);
}

export function monthEndOf(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return makeDate(y, m, daysInMonthOf(y, m));
}

export function addMonthsTo(month: string, n: number): string {
  return monthOf(addMonths(`${month}-01`, n));
}

/** The months from `from` to `to`, both included, oldest first. */
export function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let m = from; m <= to && out.length <= MAX_MONTHS; m = addMonthsTo(m, 1)) out.push(m);
  return out;
}

function parseMonth(value: string | null, field: string): string | null {
  if (value === null || value === '') return null;
  const m = MONTH.exec(value);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) {
    throw new AppError('BAD_REQUEST', `${field} must be a month YYYY-MM`, { field });
  }
  return value;
}

/** `from`/`to` months of the URL; default the 12 months ending at the business date's month. */
export function readMonthPeriod(params: URLSearchParams, businessDate: string): { from: string; to: string } {
  const to = parseMonth(params.get('to'), 'to') ?? monthOf(businessDate);
  const from = parseMonth(params.get('from'), 'from') ?? addMonthsTo(to, -11);
  if (from > to) throw new AppError('BAD_REQUEST', 'from must not be after to', { field: 'from' });
  if (monthsBetween(from, to).length > MAX_MONTHS) {
    throw new AppError('BAD_REQUEST', `the period may span at most ${MAX_MONTHS} months`, { field: 'from' });
  }
  return { from, to };
}

/** The Monday of a date's ISO week. */
export function mondayOf(date: string): string {
  return addDays(date, 1 - isoWeekday(date));
}

/** The ISO week `YYYY-Www` of a date (the year of its Thursday). */
export function isoWeekOf(date: string): string {
  const thursday = addDays(mondayOf(date), 3);
  const year = parts(thursday).year;
  const firstThursday = addDays(mondayOf(makeDate(year, 1, 4)), 3);
  const week = 1 + Math.round((Date.parse(thursday) - Date.parse(firstThursday)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The Monday of an ISO week `YYYY-Www`; null when malformed or not a week of that year. */
export function mondayOfWeek(week: string): string | null {
  const m = WEEK.exec(week);
  if (!m) return null;
  const year = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || n > 53) return null;
  const monday = addDays(mondayOf(makeDate(year, 1, 4)), (n - 1) * 7);
  return isoWeekOf(monday) === week ? monday : null;
}

function parseDate(value: string | null, field: string): string | null {
  if (value === null || value === '') return null;
  if (!isValidDate(value)) throw new AppError('BAD_REQUEST', `${field} must be a date YYYY-MM-DD`, { field });
  return value;
}

/**
 * The maturity period of the bullet board: `from`/`to` dates (whole ISO weeks: from's Monday to to's
 * Sunday); default the 13 weeks ending with the business date's week. `week` (YYYY-Www), when given,
 * must be one of the period's weeks.
 */
export function readWeekPeriod(
  params: URLSearchParams,
  businessDate: string,
): { from: string; to: string; week: string | null } {
  const toDate = parseDate(params.get('to'), 'to') ?? businessDate;
  const to = addDays(mondayOf(toDate), 6);
  const from = mondayOf(parseDate(params.get('from'), 'from') ?? addDays(mondayOf(toDate), -12 * 7));
  if (from > to) throw new AppError('BAD_REQUEST', 'from must not be after to', { field: 'from' });
  if ((Date.parse(to) - Date.parse(from)) / (7 * 86_400_000) > MAX_WEEKS) {
    throw new AppError('BAD_REQUEST', `the period may span at most ${MAX_WEEKS} weeks`, { field: 'from' });
  }
  const rawWeek = params.get('week');
  let week: string | null = null;
  if (rawWeek) {
    const monday = mondayOfWeek(rawWeek);
    if (!monday || monday < from || monday > to) {
      throw new AppError('BAD_REQUEST', 'week must be an ISO week YYYY-Www of the period', { field: 'week' });
    }
    week = rawWeek;
  }
  return { from, to, week };
}

/** The Mondays of the weeks from `from` to `to` (the callers bound the period: readWeekPeriod). */
export function weeksBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = mondayOf(from); d <= to; d = addDays(d, 7)) out.push(d);
  return out;
}

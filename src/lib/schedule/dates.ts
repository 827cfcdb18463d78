/**
 * Calendar arithmetic on 'YYYY-MM-DD' strings, in UTC day numbers so no time zone can shift a date.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

export function isValidDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonthOf(y, mo);
}

/** Days since 1970-01-01. */
export function toDay(date: string): number {
  const m = DATE.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / MS_PER_DAY;
}

export function fromDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return fromDay(toDay(date) + days);
}

/** b − a in days. */
export function daysBetween(a: string, b: string): number {
  return toDay(b) - toDay(a);
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInYearOf(year: number): number {
  return isLeapYear(year) ? 366 : 365;
}

export function daysInMonthOf(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function parts(date: string): { year: number; month: number; day: number } {
  return { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function makeDate(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/**
 * Adds months keeping `seedDay` as the wanted day of month, clamped to the month's last day
 * (java.time plusMonths on the seed date: 31 Jan + 1 month = 28/29 Feb, + 2 months = 31 Mar).
 */
export function addMonths(date: string, months: number, seedDay?: number): string {
  const { year, month, day } = parts(date);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const mo = (index % 12) + 1;
  const wanted = seedDay ?? day;
  return makeDate(y, mo, Math.min(wanted, daysInMonthOf(y, mo)));
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const wd = new Date(toDay(date) * MS_PER_DAY).getUTCDay();
  return wd === 0 ? 7 : wd;
}

export function maxDate(a: string, b: string): string {
  return a >= b ? a : b;
}

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

const digit = (text: string, i: number) => text.charCodeAt(i) - 48;

/** Days since 1970-01-01 (inputs are validated 'YYYY-MM-DD' strings; this sits on the hot path). */
export function toDay(date: string): number {
  if (date.length !== 10 || date[4] !== '-' || date[7] !== '-') throw new Error(`not a date: ${date}`);
  const { year, month, day } = parts(date);
  // Howard Hinnant's days_from_civil: pure integer arithmetic, no Date object.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonthOf(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
}

export function parts(date: string): { year: number; month: number; day: number } {
  return {
    year: digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3),
    month: digit(date, 5) * 10 + digit(date, 6),
    day: digit(date, 8) * 10 + digit(date, 9),
  };
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

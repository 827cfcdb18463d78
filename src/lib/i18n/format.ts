import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc.js';
import timezone from 'dayjs/plugin/timezone.js';
// Bundled, not fetched from a CDN (the original product loaded its day locale script from one).
import 'dayjs/locale/fr.js';
import { formatMoney, fromDecimalString } from '../money/money.ts';
import { INTL_LOCALE } from './intl-locale.ts';
import type { Language } from './index.ts';

dayjs.extend(utc);
dayjs.extend(timezone);

/**
 * Display formats per UI language. French uses dates DD/MM/YYYY, times HH:mm:ss.
 * Used by server-rendered pages and islands alike (no Node APIs here).
 */
export const DATE_FORMAT: Record<Language, string> = { en: 'MM/DD/YYYY', fr: 'DD/MM/YYYY' };
export const TIME_FORMAT: Record<Language, string> = { en: 'HH:mm:ss', fr: 'HH:mm:ss' };
export { INTL_LOCALE };

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

function toDayjs(value: Date | string, timeZone?: string) {
  // A calendar date ('YYYY-MM-DD', a `date` column) has no time zone: never shift it.
  if (typeof value === 'string' && CALENDAR_DATE.test(value)) return dayjs(value, 'YYYY-MM-DD');
  const moment = dayjs(value);
  return timeZone ? moment.tz(timeZone) : moment;
}

/** A calendar date or a moment as a date in the user's language (moments in the tenant's time zone). */
export function formatDate(value: Date | string | null | undefined, language: Language, timeZone?: string): string {
  if (value === null || value === undefined || value === '') return '';
  const d = toDayjs(value, timeZone);
  return d.isValid() ? d.locale(language).format(DATE_FORMAT[language]) : '';
}

export function formatTime(value: Date | string | null | undefined, language: Language, timeZone?: string): string {
  if (value === null || value === undefined || value === '') return '';
  const d = toDayjs(value, timeZone);
  return d.isValid() ? d.locale(language).format(TIME_FORMAT[language]) : '';
}

export function formatDateTime(value: Date | string | null | undefined, language: Language, timeZone?: string): string {
  if (value === null || value === undefined || value === '') return '';
  const d = toDayjs(value, timeZone);
  return d.isValid() ? d.locale(language).format(`${DATE_FORMAT[language]} ${TIME_FORMAT[language]}`) : '';
}

export function formatNumber(value: number | bigint, language: Language, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(INTL_LOCALE[language], options).format(value);
}

/** Money for people: the one formatter lives with the money value (src/lib/money/money.ts). */
export { formatMoney };

/**
 * An amount the API gives as a decimal string ("9350.00") in a currency, formatted like formatMoney;
 * '—' when there is none.
 */
export function formatDecimalMoney(value: string | null | undefined, currency: string, language: Language): string {
  if (value == null || value === '') return '—';
  return formatMoney(fromDecimalString(value, currency), language);
}

/** File sizes for the downloads list. */
export function formatBytes(bytes: number | bigint, language: Language): string {
  const n = Number(bytes);
  const units = language === 'fr' ? ['o', 'Ko', 'Mo', 'Go'] : ['B', 'KB', 'MB', 'GB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${formatNumber(Number(value.toFixed(unit === 0 ? 0 : 1)), language)} ${units[unit]}`;
}

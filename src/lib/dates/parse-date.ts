import { isValidDate } from '../schedule/dates.ts';

/**
 * The one check for calendar dates people send ('YYYY-MM-DD', as `<input type=date>` submits them):
 * a real day of the calendar (2027-02-31 and 31/02/2027 are refused, not rolled over or guessed), and
 * the business rule of the field — never before / after a bound such as the tenant's business date
 * (`businessDate` is the only "today" for lending). Pure, so islands may use it too.
 */
export type DateProblem = { key: string; params: Record<string, string> };
export type DateResult = { ok: true; date: string } | { ok: false; problem: DateProblem };

export type DateRules = {
  /** Earliest allowed date; `minIsBusinessDate` says the bound is the business date (for the message). */
  min?: string | null;
  minIsBusinessDate?: boolean;
  max?: string | null;
  maxIsBusinessDate?: boolean;
};

export const DATE_EXAMPLE = '2027-02-28';

export function parseDateInput(value: unknown, rules: DateRules = {}): DateResult {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
    return { ok: false, problem: { key: 'required', params: {} } };
  if (typeof value !== 'string' || value.length > 10 || !isValidDate(value)) {
    return { ok: false, problem: { key: 'date.invalid', params: { example: DATE_EXAMPLE } } };
  }
  if (rules.min && value < rules.min) {
    return {
      ok: false,
      problem: {
        key: rules.minIsBusinessDate ? 'date.notBeforeBusinessDate' : 'date.notBefore',
        params: { min: rules.min },
      },
    };
  }
  if (rules.max && value > rules.max) {
    return {
      ok: false,
      problem: {
        key: rules.maxIsBusinessDate ? 'date.notAfterBusinessDate' : 'date.notAfter',
        params: { max: rules.max },
      },
    };
  }
  return { ok: true, date: value };
}

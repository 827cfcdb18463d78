import { addDays, addMonths, daysBetween, isoWeekday, makeDate, parts } from './dates.ts';
import type { RecurrenceDay, RestFrequency } from './recalculation.ts';

/**
 * Rest and compounding dates of a recalculating cumulative loan (Fineract's rest and compounding
 * calendars, which recur from the expected disbursement date; `getNextRestScheduleDate` /
 * `getNextCompoundScheduleDate`).
 *
 * - SAME_AS_REPAYMENT_PERIOD: the schedule's due dates.
 * - DAILY every n days, WEEKLY every n weeks, MONTHLY every n months, counted from the start. A
 *   WEEKLY calendar with a weekday recurs on that weekday (the first one on or after the start), a
 *   MONTHLY one with a day of the month on that day. Without a day the start date's own weekday / day
 *   of the month is used; Fineract's product form stores a day of the month given for a WEEKLY rest in
 *   a field its weekly calendar ignores, which is why its weekly tests recur on the disbursement day.
 * - A monthly day past the end of a short month falls on that month's last day (ours; Fineract's
 *   recurrence library skips such months).
 */
export type RecurrenceCalendar = {
  frequency: RestFrequency;
  interval: number;
  day: RecurrenceDay;
  start: string;
  /** The schedule's due dates, for SAME_AS_REPAYMENT_PERIOD. */
  dueDates: string[];
};

function firstOnOrAfterWeekday(start: string, weekday: number): string {
  return addDays(start, (weekday - isoWeekday(start) + 7) % 7);
}

function monthlyAnchor(c: RecurrenceCalendar): { first: string; seedDay: number } {
  const { year, month, day } = parts(c.start);
  if (c.day.dayOfMonth === null) return { first: c.start, seedDay: day };
  const wanted = c.day.dayOfMonth;
  const candidate = makeDate(year, month, wanted);
  return { first: candidate >= c.start ? candidate : addMonths(candidate, 1, wanted), seedDay: wanted };
}

/** The first date of the calendar on or after `date` (Fineract: next schedule date after date − 1). */
export function nextOnOrAfter(c: RecurrenceCalendar, date: string): string {
  switch (c.frequency) {
    case 'SAME_AS_REPAYMENT_PERIOD':
      return c.dueDates.find((d) => d >= date) ?? c.dueDates[c.dueDates.length - 1];
    case 'DAILY': {
      if (date <= c.start) return c.start;
      const steps = Math.ceil(daysBetween(c.start, date) / c.interval);
      return addDays(c.start, steps * c.interval);
    }
    case 'WEEKLY': {
      const first = c.day.dayOfWeek === null ? c.start : firstOnOrAfterWeekday(c.start, c.day.dayOfWeek);
      if (date <= first) return first;
      const span = 7 * c.interval;
      return addDays(first, Math.ceil(daysBetween(first, date) / span) * span);
    }
    case 'MONTHLY': {
      const { first, seedDay } = monthlyAnchor(c);
      if (date <= first) return first;
      const { year: y0, month: m0 } = parts(first);
      const { year, month } = parts(date);
      let n = Math.max(0, Math.floor(((year - y0) * 12 + (month - m0)) / c.interval) - 1);
      for (;;) {
        const candidate = addMonths(first, n * c.interval, seedDay);
        if (candidate >= date) return candidate;
        n++;
      }
    }
  }
}

/** The calendar's dates d with from < d ≤ to. */
export function datesWithin(c: RecurrenceCalendar, from: string, to: string): string[] {
  const out: string[] = [];
  let d = nextOnOrAfter(c, addDays(from, 1));
  while (d > from && d <= to) {
    out.push(d);
    const next = nextOnOrAfter(c, addDays(d, 1));
    if (next <= d) break;
    d = next;
  }
  return out;
}

import { addDays, addMonths, daysInMonthOf, isoWeekday, parts, makeDate } from './dates.ts';
import type { RepaymentFrequency, WorkingCalendar } from './types.ts';

/**
 * Due dates as Fineract's DefaultScheduledDateGenerator makes them: each date is the previous
 * UNADJUSTED date plus `every` units; for months the day of the seed date (the first repayment date,
 * else the schedule start) is restored when it is past the 28th (CalendarUtils.adjustDate), so
 * 31 Jan → 28 Feb → 31 Mar. Days off move the due date but never the chain of unadjusted dates.
 */
export function nextRepaymentDate(
  last: string,
  frequency: RepaymentFrequency,
  every: number,
  seedDate: string,
): string {
  if (frequency === 'DAYS') return addDays(last, every);
  if (frequency === 'WEEKS') return addDays(last, 7 * every);
  const plain = addMonths(last, every);
  const seedDay = parts(seedDate).day;
  const { year, month, day } = parts(plain);
  if (seedDay > 28 && day >= 28) return makeDate(year, month, Math.min(daysInMonthOf(year, month), seedDay));
  return plain;
}

/** The unadjusted due dates of `count` repayments from the schedule start. */
export function unadjustedDueDates(
  start: string,
  firstRepaymentDate: string | null,
  count: number,
  frequency: RepaymentFrequency,
  every: number,
): string[] {
  const seed = firstRepaymentDate ?? start;
  const dates: string[] = [];
  let last = start;
  for (let i = 0; i < count; i++) {
    last = i === 0 && firstRepaymentDate ? firstRepaymentDate : nextRepaymentDate(last, frequency, every, seed);
    dates.push(last);
  }
  return dates;
}

function holidayOn(calendar: WorkingCalendar, date: string) {
  return calendar.holidays.find((h) => h.from <= date && date <= h.to);
}

function isDayOff(calendar: WorkingCalendar, date: string): boolean {
  return calendar.nonWorkingWeekdays.includes(isoWeekday(date)) || holidayOn(calendar, date) !== undefined;
}

/**
 * Moves a due date off the tenant's days off (Fineract adjustRepaymentDate): a holiday with a
 * reschedule date sends it there; otherwise the rule applies — next working day, previous working
 * day, the next repayment date, or the same day (non-working weekdays only; a holiday without a
 * reschedule date still moves to the next working day).
 */
export function adjustDueDate(
  date: string,
  calendar: WorkingCalendar | undefined,
  next: (unadjusted: string) => string,
): string {
  if (!calendar) return date;
  let current = date;
  let successor = date;
  for (let guard = 0; guard < 3660; guard++) {
    const holiday = holidayOn(calendar, current);
    if (holiday?.repaymentsRescheduledTo) {
      if (holiday.repaymentsRescheduledTo === current) return current;
      current = holiday.repaymentsRescheduledTo;
      continue;
    }
    if (holiday?.rescheduleToNextRepaymentDate) {
      do successor = next(successor);
      while (successor <= current);
      current = successor;
      continue;
    }
    if (!isDayOff(calendar, current)) return current;
    const rule = holiday && calendar.rule === 'SAME_DAY' ? 'NEXT_WORKING_DAY' : calendar.rule;
    if (rule === 'SAME_DAY') return current;
    if (rule === 'NEXT_WORKING_DAY') current = addDays(current, 1);
    else if (rule === 'PREVIOUS_WORKING_DAY') current = addDays(current, -1);
    else {
      do successor = next(successor);
      while (successor <= current);
      current = successor;
    }
  }
  return current;
}

/** The first working day after `date` (holidays and non-working weekdays are off). */
export function nextWorkingDayAfter(date: string, calendar: WorkingCalendar | undefined): string {
  let current = addDays(date, 1);
  if (!calendar) return current;
  for (let guard = 0; guard < 3660 && isDayOff(calendar, current); guard++) current = addDays(current, 1);
  return current;
}

/**
 * Adjusted due dates, computed on demand: each is the unadjusted date moved off days off, and never on
 * or before the previous due date (nor the disbursement): with daily repayments a Sunday moved to
 * Monday would otherwise collide with Monday's own due date, so later dates slide to the next working
 * day (Fineract extends the term the same way for daily repayments).
 */
export function dueDateSequence(
  start: string,
  firstRepaymentDate: string | null,
  frequency: RepaymentFrequency,
  every: number,
  calendar: WorkingCalendar | undefined,
  notBefore: string,
): (index: number) => string {
  const seed = firstRepaymentDate ?? start;
  const next = (d: string) => nextRepaymentDate(d, frequency, every, seed);
  const unadjusted: string[] = [];
  const adjusted: string[] = [];
  return (index: number) => {
    while (adjusted.length <= index) {
      const k = adjusted.length;
      const raw = k === 0 ? (firstRepaymentDate ?? next(start)) : next(unadjusted[k - 1]);
      unadjusted.push(raw);
      let due = adjustDueDate(raw, calendar, next);
      // A "next repayment date" holiday moves the chain too (Fineract sets the actual repayment date).
      if (calendar && holidayOn(calendar, raw)?.rescheduleToNextRepaymentDate) unadjusted[k] = due;
      const previous = k === 0 ? notBefore : adjusted[k - 1];
      if (due <= previous) due = nextWorkingDayAfter(previous, calendar);
      adjusted.push(due);
    }
    return adjusted[index];
  };
}

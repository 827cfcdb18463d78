import { AppError } from '../errors/app-error.ts';
import { parseCalendar, parseTerms } from './terms.ts';
import { scheduleToJson } from './json.ts';
import type { Schedule, ScheduleJson, ScheduleTerms, WorkingCalendar } from './types.ts';

/** Generates the repayment schedule for validated terms (see README.md for the conventions). */
export function generateSchedule(terms: ScheduleTerms, calendar?: WorkingCalendar): Schedule {
  void terms;
  void calendar;
  throw new AppError('INTERNAL', 'schedule generation is being implemented');
}

/** Terms JSON (with an optional `calendar`) → contract JSON. Used by the CLI and the preview endpoint. */
export function previewSchedule(input: unknown): ScheduleJson {
  const terms = parseTerms(input);
  const calendar = parseCalendar((input as { calendar?: unknown }).calendar);
  return scheduleToJson(generateSchedule(terms, calendar));
}

import { Cron } from 'croner';
import { AppError } from '../errors/app-error.ts';

/**
 * Schedules are 5-field cron expressions (minute hour day-of-month month day-of-week) or a nickname
 * (@hourly, @daily, @weekly, @monthly, @yearly), evaluated by croner in the tenant's time zone, so
 * "0 6 * * *" is 06:00 in Paris in winter and in summer. Across a daylight-saving change croner runs a
 * fixed-time job once: a time that does not exist (02:30 on the spring change) runs at the first
 * minute after the gap, a time that happens twice runs on its first occurrence.
 * Schedules more frequent than every 15 minutes are refused (an export is a whole-list query).
 */

export const MIN_INTERVAL_MINUTES = 15;
const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

function refuse(message: string): never {
  throw new AppError('BAD_REQUEST', `cron: ${message}`, { field: 'cron' });
}

function build(expression: string, timeZone: string): Cron {
  return new Cron(expression, { timezone: timeZone, paused: true, mode: '5-part' });
}

/** The schedule's canonical text (trimmed, single spaces), or a 400 naming `cron`. */
export function checkCron(raw: string, timeZone: string): string {
  const expression = raw.trim().replace(/\s+/g, ' ');
  if (!expression) refuse('a schedule is required, such as 0 6 * * * (every day at 06:00)');
  if (expression.length > 120) refuse('at most 120 characters');
  const isNickname = NICKNAMES.includes(expression.toLowerCase());
  if (!isNickname && expression.split(' ').length !== 5)
    refuse('five fields are expected: minute hour day-of-month month day-of-week (e.g. 0 6 * * 1-5)');
  let cron: Cron;
  try {
    cron = build(expression, timeZone);
  } catch (error) {
    refuse(
      `not a valid cron expression (${error instanceof Error ? error.message.replace(/^CronPattern: /, '') : ''})`,
    );
  }
  // The shortest gap between runs: within the next 300 runs, a day's pattern has repeated (or runs
  // are less than 1440/300 minutes apart, which the check catches anyway).
  const runs = cron.nextRuns(300, new Date());
  if (runs.length === 0) refuse('this schedule never runs');
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < MIN_INTERVAL_MINUTES * 60_000)
      refuse(`runs at most every ${MIN_INTERVAL_MINUTES} minutes are allowed`);
  }
  return expression;
}

/** The next `n` run times strictly after `from`, in the time zone. */
export function nextRuns(expression: string, timeZone: string, n: number, from: Date = new Date()): Date[] {
  try {
    return build(expression, timeZone).nextRuns(n, from);
  } catch {
    return [];
  }
}

/** The latest run time at or before `at` (null when there is none). */
export function latestRunAtOrBefore(expression: string, timeZone: string, at: Date): Date | null {
  try {
    const cron = build(expression, timeZone);
    // nextRun is strictly after its argument: look from one second before `at`.
    const exact = cron.nextRun(new Date(at.getTime() - 1000));
    if (exact && exact.getTime() <= at.getTime()) return exact;
    return cron.previousRuns(1, at)[0] ?? null;
  } catch {
    return null;
  }
}

type Words = {
  t: (key: string, options?: Record<string, unknown>) => string;
  language: string;
};

const pad = (n: string) => n.padStart(2, '0');

/**
 * The schedule in words for the common shapes (every N minutes or hours, daily, weekdays, weekly,
 * monthly at a time); anything else is "custom schedule" (the page shows the expression and the next
 * runs next to it).
 */
export function describeCron(expression: string, { t, language }: Words): string {
  const nick: Record<string, string> = {
    '@yearly': '0 0 1 1 *',
    '@annually': '0 0 1 1 *',
    '@monthly': '0 0 1 * *',
    '@weekly': '0 0 * * 0',
    '@daily': '0 0 * * *',
    '@midnight': '0 0 * * *',
    '@hourly': '0 * * * *',
  };
  const parts = (nick[expression.toLowerCase()] ?? expression).split(' ');
  if (parts.length !== 5) return t('schedexports:cron.custom');
  const [minute, hour, dom, month, dow] = parts as [string, string, string, string, string];
  const isNum = (s: string) => /^\d{1,2}$/.test(s);
  const time = isNum(minute) && isNum(hour) ? `${pad(hour)}:${pad(minute)}` : null;
  const weekday = (d: number) =>
    new Intl.DateTimeFormat(language, { weekday: 'long', timeZone: 'UTC' }).format(
      new Date(Date.UTC(2023, 0, 1 + (d % 7))),
    );
  const step = /^\*\/(\d+)$/;
  if (month === '*' && dom === '*' && dow === '*') {
    if (step.test(minute) && hour === '*')
      return t('schedexports:cron.everyMinutes', { count: Number(step.exec(minute)![1]) });
    if (isNum(minute) && hour === '*') return t('schedexports:cron.hourly', { minute: pad(minute) });
    if (isNum(minute) && step.test(hour))
      return t('schedexports:cron.everyHours', { count: Number(step.exec(hour)![1]), minute: pad(minute) });
    if (time) return t('schedexports:cron.daily', { time });
  }
  if (time && month === '*' && dom === '*') {
    if (dow === '1-5') return t('schedexports:cron.weekdays', { time });
    if (/^\d$/.test(dow)) return t('schedexports:cron.weekly', { day: weekday(Number(dow)), time });
  }
  if (time && month === '*' && dow === '*' && isNum(dom)) return t('schedexports:cron.monthly', { day: dom, time });
  return t('schedexports:cron.custom');
}

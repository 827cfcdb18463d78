import { describe, expect, it } from 'vitest';
import { checkCron, describeCron, latestRunAtOrBefore, nextRuns } from './cron.ts';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const words = (expression: string, language = 'en') =>
  describeCron(expression, {
    language,
    t: (key, o) => `${key}${o ? ` ${JSON.stringify(o)}` : ''}`,
  });

describe('schedules in the tenant time zone', () => {
  it('follows Paris across both daylight-saving changes of 2026', () => {
    // 06:00 Paris is 05:00 UTC in winter, 04:00 UTC in summer (change on 29 March).
    expect(iso(nextRuns('0 6 * * *', 'Europe/Paris', 3, new Date('2026-03-27T12:00:00Z')))).toEqual([
      '2026-03-28T05:00:00.000Z',
      '2026-03-29T04:00:00.000Z',
      '2026-03-30T04:00:00.000Z',
    ]);
    // 02:30 does not exist on 29 March: the run is at the first minute after the gap (03:00 CEST).
    expect(iso(nextRuns('30 2 * * *', 'Europe/Paris', 2, new Date('2026-03-28T12:00:00Z')))).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    // 02:30 happens twice on 25 October: one run, at the first.
    expect(iso(nextRuns('30 2 * * *', 'Europe/Paris', 2, new Date('2026-10-24T12:00:00Z')))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    // The same expression in New York is another instant.
    expect(iso(nextRuns('0 6 * * *', 'America/New_York', 1, new Date('2026-01-10T12:00:00Z')))).toEqual([
      '2026-01-11T11:00:00.000Z',
    ]);
  });

  it('finds the latest time at or before a moment', () => {
    expect(latestRunAtOrBefore('0 6 * * *', 'Europe/Paris', new Date('2026-03-29T04:00:00Z'))?.toISOString()).toBe(
      '2026-03-29T04:00:00.000Z',
    );
    expect(latestRunAtOrBefore('0 6 * * *', 'Europe/Paris', new Date('2026-03-29T03:59:00Z'))?.toISOString()).toBe(
      '2026-03-28T05:00:00.000Z',
    );
  });

  it('refuses invalid and too frequent schedules, naming cron', () => {
    for (const bad of ['', '* * * * *', '*/5 * * * *', '0,10 * * * *', '0 6 * * * *', '61 * * * *', 'every day'])
      expect(() => checkCron(bad, 'Europe/Paris'), bad).toThrowError(/^cron: /);
    expect(checkCron('  */15   * * * * ', 'Europe/Paris')).toBe('*/15 * * * *');
    expect(checkCron('@daily', 'Europe/Paris')).toBe('@daily');
  });

  it('puts the common shapes in words', () => {
    expect(words('0 6 * * *')).toBe('schedexports:cron.daily {"time":"06:00"}');
    expect(words('30 7 * * 1-5')).toBe('schedexports:cron.weekdays {"time":"07:30"}');
    expect(words('0 8 * * 1')).toBe('schedexports:cron.weekly {"day":"Monday","time":"08:00"}');
    expect(words('0 8 * * 1', 'fr')).toBe('schedexports:cron.weekly {"day":"lundi","time":"08:00"}');
    expect(words('0 5 1 * *')).toBe('schedexports:cron.monthly {"day":"1","time":"05:00"}');
    expect(words('*/30 * * * *')).toBe('schedexports:cron.everyMinutes {"count":30}');
    expect(words('15 */2 * * *')).toBe('schedexports:cron.everyHours {"count":2,"minute":"15"}');
    expect(words('0 6 1-7 * 1')).toBe('schedexports:cron.custom');
  });
});

import type { TFunction } from 'i18next';
import type { ReschedulingType } from '#lib/days-off/calendar.ts';

/**
 * How a holiday's due dates move, in words for the holidays list and the import preview: the type's
 * short label, with the date for a specified date (`date` formats it in the reader's language).
 */
export function reschedulingText(
  t: TFunction,
  holiday: { reschedulingType: ReschedulingType; repaymentsRescheduledTo: string | null },
  date: (d: string) => string,
): string {
  const { reschedulingType: type, repaymentsRescheduledTo: to } = holiday;
  return type === 'SPECIFIED_DATE' && to
    ? t('daysoff:holidays.moves.SPECIFIED_DATE', { date: date(to) })
    : t(`daysoff:holidays.moves.${type}`);
}

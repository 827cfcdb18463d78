/**
 * Days off moved to src/lib/days-off (branches, the four rules, import, applying to existing loans);
 * these two verbs stay for the lending tests and the simulator's callers.
 */
import type { Tx } from '../db/index.ts';
import type { Actor } from './actor.ts';
import { addHolidayCommand, replaceWeekdays, tFor, type HolidayInput } from '../days-off/commands.ts';

/** Adds a holiday (inclusive range); due dates inside it move as its rescheduling type says (the rule by default). */
export async function addHoliday(tx: Tx, actor: Actor, input: HolidayInput): Promise<string> {
  const holiday = await addHolidayCommand.run(tx, actor, input, { language: 'en' });
  return holiday.id;
}

/** Replaces the tenant-wide non-working weekdays (ISO 1 = Monday … 7 = Sunday). */
export async function setNonWorkingWeekdays(tx: Tx, actor: Actor, weekdays: number[]): Promise<void> {
  await replaceWeekdays(tx, actor, await tFor('en'), weekdays, null);
}

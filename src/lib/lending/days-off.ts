import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import type { Actor } from './actor.ts';
import { auditSuccess } from './commands/common.ts';
import type { DaysOffRow } from '../db/schema.generated.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Adds a holiday (inclusive range); due dates inside it move per the tenant's rule at disbursement. */
export async function addHoliday(
  tx: Tx,
  actor: Actor,
  input: { name: string; from: string; to: string; repaymentsRescheduledTo?: string | null },
) {
  if (!DATE.test(input.from)) throw new AppError('BAD_REQUEST', 'from must be a date YYYY-MM-DD', { field: 'from' });
  if (!DATE.test(input.to) || input.to < input.from)
    throw new AppError('BAD_REQUEST', 'to must be a date YYYY-MM-DD not before from', { field: 'to' });
  const [row] = await tx.query<Pick<DaysOffRow, 'id'>>(
    `insert into days_off (tenant_id, kind, name, from_date, to_date, repayments_rescheduled_to) values ($1, 'holiday', $2, $3, $4, $5) returning id`,
    [actor.tenantId, input.name, input.from, input.to, input.repaymentsRescheduledTo ?? null],
  );
  await auditSuccess(tx, actor, 'days_off.add_holiday', 'days_off', row.id, null, input);
  return row.id;
}

/** Replaces the recurring non-working weekdays (ISO 1 = Monday … 7 = Sunday). */
export async function setNonWorkingWeekdays(tx: Tx, actor: Actor, weekdays: number[]) {
  const unique = [...new Set(weekdays)].sort();
  if (unique.some((d) => !Number.isInteger(d) || d < 1 || d > 7) || unique.length >= 7) {
    throw new AppError(
      'BAD_REQUEST',
      'weekdays must be ISO weekdays 1 (Monday) to 7 (Sunday), leaving at least one working day',
      { field: 'weekdays' },
    );
  }
  const before = await tx.query<{ weekday: number }>(
    `select weekday from days_off where kind = 'non_working_weekday' order by weekday`,
  );
  await tx.query(`delete from days_off where kind = 'non_working_weekday'`);
  for (const d of unique)
    await tx.query(`insert into days_off (tenant_id, kind, weekday) values ($1, 'non_working_weekday', $2)`, [
      actor.tenantId,
      d,
    ]);
  await auditSuccess(
    tx,
    actor,
    'days_off.set_weekdays',
    'days_off',
    'weekdays',
    before.map((b) => b.weekday),
    unique,
  );
}

/**
 * Days off (admin › data › days off): the writes, as commands run by /v1/days-off/** and the page's
 * forms. Every change takes the tenant's days-off lock (one change at a time, and never beside an
 * "apply to existing loans"), is audited with before and after, and refuses bad input with a 400
 * naming the field in the writer's language.
 *
 * A holiday's rescheduling type says how its due dates move (see RESCHEDULING_TYPES): to a specified
 * date (which needs `repaymentsRescheduledTo`), to the next repayment date (which must not have one,
 * as in Fineract), or as the tenant's rule says (no date either). Without a type, a date means the
 * specified date and no date the rule, as before the type existed; a type and a date that disagree
 * are refused, naming `repaymentsRescheduledTo`.
 *
 * Holidays follow Fineract's life: a pending holiday (not yet applied to existing loans) can be edited
 * freely; once applied, only its name can change (its dates are in loans' schedules: delete it and add
 * it again). Deleting a holiday, applied or not, never moves a loan by itself: the loans keep their
 * due dates until "apply to existing loans" runs again, which moves them to the dates the remaining
 * calendar gives (the preview shows them first).
 */
import { z } from 'zod';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError, pgCode } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { getT, type Language } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import { auditSuccess } from '../lending/commands/common.ts';
import { daysBetween, isValidDate } from '../schedule/dates.ts';
import type { WorkingDayRule } from '../schedule/types.ts';
import {
  getHoliday,
  isReschedulingType,
  isUuid,
  listBranches,
  listWeekdaySets,
  loadRule,
  RESCHEDULING_TYPES,
  RULES,
  type HolidayView,
  type ReschedulingType,
} from './calendar.ts';

/** Advisory-lock class of days-off changes: `pg_advisory_xact_lock(class, hashtext(tenant))`. */
const DAYS_OFF_LOCK_CLASS = 0x4450;

export async function lockDaysOff(tx: Tx, tenantId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [DAYS_OFF_LOCK_CLASS, tenantId]);
}

export const MAX_NAME = 200;
/** A holiday longer than a year is a mistake (and would make the engine walk far for a working day). */
export const MAX_HOLIDAY_DAYS = 366;
const MIN_DATE = '1900-01-01';
const MAX_DATE = '2199-12-31';
// Control characters other than tab: not a holiday's name (a NUL would not even reach Postgres).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

type T = Awaited<ReturnType<typeof getT>>;

export const tFor = (language: Language | undefined) => getT(language ?? 'en');

function bad(t: T, field: string, key: string, params: Record<string, string | number> = {}): AppError {
  return new AppError('BAD_REQUEST', t(`daysoff:errors.${key}`, { ...params, field: t(`daysoff:fields.${field}`) }), {
    field,
  });
}

/** A holiday as typed (API, form, import row); strings as given. */
export type HolidayInput = {
  name: string;
  from: string;
  to: string;
  /** One of RESCHEDULING_TYPES; absent, it follows from the date (see the header). */
  reschedulingType?: string | null;
  repaymentsRescheduledTo?: string | null;
  branchId?: string | null;
};

export type CheckedHoliday = {
  name: string;
  from: string;
  to: string;
  reschedulingType: ReschedulingType;
  repaymentsRescheduledTo: string | null;
  branchId: string | null;
};

function checkDate(t: T, field: string, value: string): string {
  const text = value.trim();
  if (!isValidDate(text) || text < MIN_DATE || text > MAX_DATE)
    throw bad(t, field, 'date', { value: text.slice(0, 20) });
  return text;
}

/** The checks of one holiday without the database (names the field; `branchId` is checked by the caller). */
export function checkHolidayFields(t: T, input: HolidayInput): CheckedHoliday {
  const name = input.name.trim();
  if (!name) throw bad(t, 'name', 'required');
  if (name.length > MAX_NAME) throw bad(t, 'name', 'tooLong', { max: MAX_NAME });
  if (CONTROL.test(name)) throw bad(t, 'name', 'control');
  const from = checkDate(t, 'from', input.from);
  const to = checkDate(t, 'to', input.to);
  if (to < from) throw bad(t, 'to', 'toBeforeFrom');
  if (daysBetween(from, to) + 1 > MAX_HOLIDAY_DAYS) throw bad(t, 'to', 'tooManyDays', { max: MAX_HOLIDAY_DAYS });
  const moved = input.repaymentsRescheduledTo?.trim() || null;
  const rescheduled = moved === null ? null : checkDate(t, 'repaymentsRescheduledTo', moved);
  if (rescheduled && rescheduled >= from && rescheduled <= to) throw bad(t, 'repaymentsRescheduledTo', 'insideHoliday');
  const reschedulingType = checkReschedulingType(t, input.reschedulingType, rescheduled);
  const branch = input.branchId?.trim() || null;
  if (branch !== null && !isUuid(branch)) throw bad(t, 'branchId', 'branchUnknown');
  return { name, from, to, reschedulingType, repaymentsRescheduledTo: rescheduled, branchId: branch };
}

/** The type given, or the one the date implies; a specified date needs its date, the other types none. */
function checkReschedulingType(t: T, given: string | null | undefined, date: string | null): ReschedulingType {
  const text = given?.trim() || null;
  if (text !== null && !isReschedulingType(text))
    throw bad(t, 'reschedulingType', 'reschedulingType', { options: RESCHEDULING_TYPES.join(', ') });
  const type = text ?? (date ? 'SPECIFIED_DATE' : 'WORKING_DAY_RULE');
  if (type === 'SPECIFIED_DATE' && !date) throw bad(t, 'repaymentsRescheduledTo', 'rescheduledToRequired');
  if (type !== 'SPECIFIED_DATE' && date) throw bad(t, 'repaymentsRescheduledTo', 'rescheduledToNotAllowed');
  return type;
}

export async function assertBranch(tx: Tx, t: T, branchId: string | null): Promise<void> {
  if (branchId === null) return;
  const branches = await listBranches(tx);
  if (!branches.some((b) => b.id === branchId)) throw bad(t, 'branchId', 'branchUnknown');
}

function duplicate(t: T) {
  return (error: unknown): never => {
    if (pgCode(error) === '23505')
      throw new AppError('ALREADY_EXISTS', t('daysoff:errors.duplicate'), { field: 'name' });
    throw error;
  };
}

function auditView(h: HolidayView | CheckedHoliday | null) {
  if (!h) return null;
  return {
    name: h.name,
    from: h.from,
    to: h.to,
    reschedulingType: h.reschedulingType,
    repaymentsRescheduledTo: h.repaymentsRescheduledTo,
    branchId: 'branch' in h ? (h.branch?.id ?? null) : h.branchId,
  };
}

async function notFound(t: T): Promise<never> {
  throw new AppError('NOT_FOUND', t('daysoff:errors.notFound'));
}

/** Inserts one checked holiday (no audit: the caller audits); null when the same one is already there. */
export async function insertHoliday(tx: Tx, tenantId: string, h: CheckedHoliday): Promise<string | null> {
  const rows = await tx.query<{ id: string }>(
    `insert into days_off
       (tenant_id, kind, name, from_date, to_date, rescheduling_type, repayments_rescheduled_to, branch_id)
     values ($1, 'holiday', $2, $3, $4, $5, $6, $7) on conflict do nothing returning id`,
    [tenantId, h.name, h.from, h.to, h.reschedulingType, h.repaymentsRescheduledTo, h.branchId],
  );
  return rows[0]?.id ?? null;
}

const text = (max: number) => z.string().max(max);
const dateText = z.string().max(20);
// The command names the field and the choices, not zod: free text up to a little over the longest type.
const typeText = z.string().max(40);

export const addHolidayCommand = defineCommand({
  action: 'days_off.add_holiday',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z
    .object({
      name: text(MAX_NAME * 2),
      from: dateText,
      to: dateText,
      reschedulingType: typeText.nullish(),
      repaymentsRescheduledTo: dateText.nullish(),
      branchId: text(64).nullish(),
    })
    .strict(),
  run: async (tx, actor, input, request) => {
    const t = await tFor(request.language);
    const checked = checkHolidayFields(t, input);
    await lockDaysOff(tx, actor.tenantId);
    await assertBranch(tx, t, checked.branchId);
    const id = await insertHoliday(tx, actor.tenantId, checked).catch(duplicate(t));
    if (!id) throw new AppError('ALREADY_EXISTS', t('daysoff:errors.duplicate'), { field: 'name' });
    await auditSuccess(tx, actor, 'days_off.add_holiday', 'days_off', id, null, auditView(checked));
    return (await getHoliday(tx, id))!;
  },
});

/**
 * The type and date an update asks for, from what it gives and what the holiday had. Given both, they
 * are checked together. A type alone drops the old date unless it is a specified date (Fineract clears
 * the date when a holiday changes to "next repayment date"). A date alone makes it a specified date;
 * clearing the date of a specified-date holiday makes it follow the rule, as before the type existed.
 */
function rescheduleChange(
  before: HolidayView,
  input: { reschedulingType?: string | null; repaymentsRescheduledTo?: string | null },
): Pick<HolidayInput, 'reschedulingType' | 'repaymentsRescheduledTo'> {
  const type = input.reschedulingType?.trim() || null;
  const date = input.repaymentsRescheduledTo;
  if (type !== null) {
    if (date !== undefined) return { reschedulingType: type, repaymentsRescheduledTo: date };
    return {
      reschedulingType: type,
      repaymentsRescheduledTo: type === 'SPECIFIED_DATE' ? before.repaymentsRescheduledTo : null,
    };
  }
  if (date === undefined)
    return { reschedulingType: before.reschedulingType, repaymentsRescheduledTo: before.repaymentsRescheduledTo };
  if (date?.trim()) return { reschedulingType: 'SPECIFIED_DATE', repaymentsRescheduledTo: date };
  const kept = before.reschedulingType === 'SPECIFIED_DATE' ? 'WORKING_DAY_RULE' : before.reschedulingType;
  return { reschedulingType: kept, repaymentsRescheduledTo: null };
}

export const updateHolidayCommand = defineCommand({
  action: 'days_off.update_holiday',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z
    .object({
      id: z.string().max(64),
      name: text(MAX_NAME * 2).optional(),
      from: dateText.optional(),
      to: dateText.optional(),
      reschedulingType: typeText.nullish(),
      repaymentsRescheduledTo: dateText.nullish(),
      branchId: text(64).nullish(),
      expectedRevision: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
    })
    .strict(),
  run: async (tx, actor, input, request) => {
    const t = await tFor(request.language);
    await lockDaysOff(tx, actor.tenantId);
    const before = (await getHoliday(tx, input.id)) ?? (await notFound(t));
    if (input.expectedRevision !== undefined && input.expectedRevision !== before.revision)
      throw new AppError('CONFLICT', t('daysoff:errors.revision'), { field: 'expectedRevision' });
    const checked = checkHolidayFields(t, {
      name: input.name ?? before.name,
      from: input.from ?? before.from,
      to: input.to ?? before.to,
      ...rescheduleChange(before, input),
      branchId: input.branchId === undefined ? (before.branch?.id ?? null) : input.branchId,
    });
    const movesLoans =
      checked.from !== before.from ||
      checked.to !== before.to ||
      checked.reschedulingType !== before.reschedulingType ||
      checked.repaymentsRescheduledTo !== before.repaymentsRescheduledTo ||
      checked.branchId !== (before.branch?.id ?? null);
    if (before.appliedAt && movesLoans) throw new AppError('CONFLICT', t('daysoff:errors.applied'), { field: 'from' });
    await assertBranch(tx, t, checked.branchId);
    await tx
      .query(
        `update days_off set name = $2, from_date = $3, to_date = $4, rescheduling_type = $5,
                repayments_rescheduled_to = $6, branch_id = $7, revision = revision + 1, updated_at = now()
          where id = $1 and kind = 'holiday'`,
        [
          input.id,
          checked.name,
          checked.from,
          checked.to,
          checked.reschedulingType,
          checked.repaymentsRescheduledTo,
          checked.branchId,
        ],
      )
      .catch(duplicate(t));
    await auditSuccess(
      tx,
      actor,
      'days_off.update_holiday',
      'days_off',
      input.id,
      auditView(before),
      auditView(checked),
    );
    return (await getHoliday(tx, input.id))!;
  },
});

export const deleteHolidayCommand = defineCommand({
  action: 'days_off.delete_holiday',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z.object({ id: z.string().max(64) }).strict(),
  run: async (tx, actor, input, request) => {
    const t = await tFor(request.language);
    await lockDaysOff(tx, actor.tenantId);
    const before = (await getHoliday(tx, input.id)) ?? (await notFound(t));
    await tx.query(`delete from days_off where id = $1 and kind = 'holiday'`, [input.id]);
    await auditSuccess(tx, actor, 'days_off.delete_holiday', 'days_off', input.id, auditView(before), {
      deleted: true,
      // Loans keep their due dates until "apply to existing loans" runs again (see the header).
      wasApplied: before.appliedAt !== null,
    });
    return { holiday: before, wasApplied: before.appliedAt !== null };
  },
});

/** Replaces the non-working ISO weekdays (1 = Monday … 7 = Sunday) tenant-wide or of one branch. */
export async function replaceWeekdays(
  tx: Tx,
  actor: Actor,
  t: T,
  weekdays: readonly number[],
  branchId: string | null,
): Promise<number[]> {
  const unique = [...new Set(weekdays)].sort((a, b) => a - b);
  if (unique.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) throw bad(t, 'weekdays', 'weekdays');
  await lockDaysOff(tx, actor.tenantId);
  await assertBranch(tx, t, branchId);
  const sets = await listWeekdaySets(tx);
  const tenantSet = branchId === null ? unique : (sets.find((s) => s.branch === null)?.weekdays ?? []);
  // Every calendar keeps a working day: the tenant's, and each branch's (tenant-wide + its own).
  const branchSets = sets.filter((s) => s.branch).map((s) => (s.branch!.id === branchId ? unique : s.weekdays));
  if (branchId !== null) branchSets.push(unique);
  for (const own of [[], ...branchSets])
    if (new Set([...tenantSet, ...own]).size >= 7) throw bad(t, 'weekdays', 'weekdaysAll');
  const before = sets.find((s) => (s.branch?.id ?? null) === branchId)?.weekdays ?? [];
  await tx.query(
    `delete from days_off where kind = 'non_working_weekday' and branch_id is not distinct from $1::uuid`,
    [branchId],
  );
  if (unique.length)
    await tx.query(
      `insert into days_off (tenant_id, kind, name, weekday, branch_id)
       select $1, 'non_working_weekday', '', d, $3::uuid from unnest($2::int[]) as d`,
      [actor.tenantId, unique, branchId],
    );
  await auditSuccess(tx, actor, 'days_off.set_weekdays', 'days_off', branchId ?? 'weekdays', before, {
    weekdays: unique,
    branchId,
  });
  return unique;
}

export const setWeekdaysCommand = defineCommand({
  action: 'days_off.set_weekdays',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z
    .object({
      weekdays: z.array(z.coerce.number().int().min(1).max(7)).max(7),
      branchId: text(64).nullish(),
    })
    .strict(),
  run: async (tx, actor, input, request) => {
    const t = await tFor(request.language);
    const branchId = input.branchId?.trim() || null;
    if (branchId !== null && !isUuid(branchId)) throw bad(t, 'branchId', 'branchUnknown');
    return { weekdays: await replaceWeekdays(tx, actor, t, input.weekdays, branchId), branchId };
  },
});

export const setRuleCommand = defineCommand({
  action: 'days_off.set_rule',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z.object({ rule: z.string().max(40) }).strict(),
  run: async (tx, actor, input, request) => {
    const t = await tFor(request.language);
    const rule = input.rule as WorkingDayRule;
    if (!RULES.includes(rule)) throw bad(t, 'rule', 'rule', { options: RULES.join(', ') });
    await lockDaysOff(tx, actor.tenantId);
    const before = await loadRule(tx);
    await tx.query(
      `insert into lending_settings (tenant_id, due_date_on_day_off) values ($1, $2)
       on conflict (tenant_id) do update set due_date_on_day_off = excluded.due_date_on_day_off`,
      [actor.tenantId, rule],
    );
    await auditSuccess(tx, actor, 'days_off.set_rule', 'days_off', 'rule', { rule: before }, { rule });
    return { rule };
  },
});

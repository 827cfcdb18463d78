/**
 * Days off (admin › data › days off): reads. A tenant's days off are recurring non-working ISO
 * weekdays and holidays (inclusive date ranges with a rescheduling type: the tenant's rule, "repayments
 * rescheduled to" a date, or the next repayment date), each tenant-wide (branch_id NULL) or for one branch. A branch's calendar is the tenant-wide days off plus
 * its own; the rule for due dates on days off is one tenant setting (lending_settings). The engine
 * reads the calendar through `loadCalendar` (src/lib/lending/products.ts), which this module's
 * `calendarFor` wraps.
 */
import type { Tx } from '../db/index.ts';
import type { DaysOffRow, HierarchyNodesRow } from '../db/schema.generated.ts';
import { loadCalendar } from '../lending/products.ts';
import type { WorkingCalendar, WorkingDayRule } from '../schedule/types.ts';

/** Fineract's RepaymentRescheduleType, in the engine's names (src/lib/schedule/types.ts). */
export const RULES: readonly WorkingDayRule[] = [
  'SAME_DAY',
  'NEXT_WORKING_DAY',
  'NEXT_REPAYMENT_DAY',
  'PREVIOUS_WORKING_DAY',
];

/** The engine's rule name → Fineract's RepaymentRescheduleType name (shown beside the explanation). */
export const FINERACT_RULE_NAME: Record<WorkingDayRule, string> = {
  SAME_DAY: 'SAME_DAY',
  NEXT_WORKING_DAY: 'MOVE_TO_NEXT_WORKING_DAY',
  NEXT_REPAYMENT_DAY: 'MOVE_TO_NEXT_REPAYMENT_MEETING_DAY',
  PREVIOUS_WORKING_DAY: 'MOVE_TO_PREVIOUS_WORKING_DAY',
};

/**
 * How the due dates inside a holiday move (days_off.rescheduling_type, migration 1160). Fineract's
 * holiday RescheduleType has two: SPECIFIED_DATE (its 2, with `repaymentsRescheduledTo`) and
 * NEXT_REPAYMENT_DATE (its 1, no date: the next repayment date, the chain continuing from there).
 * WORKING_DAY_RULE is this product's: the tenant's rule for due dates on days off decides, as for a
 * non-working weekday (every holiday without a date behaved so before the column existed).
 */
export const RESCHEDULING_TYPES = ['WORKING_DAY_RULE', 'SPECIFIED_DATE', 'NEXT_REPAYMENT_DATE'] as const;
export type ReschedulingType = (typeof RESCHEDULING_TYPES)[number];

export const isReschedulingType = (value: string): value is ReschedulingType =>
  (RESCHEDULING_TYPES as readonly string[]).includes(value);

export type BranchRef = { id: string; code: string; name: string };

export type HolidayView = {
  id: string;
  name: string;
  from: string;
  to: string;
  reschedulingType: ReschedulingType;
  /** Only with SPECIFIED_DATE (a check constraint keeps the two consistent). */
  repaymentsRescheduledTo: string | null;
  branch: BranchRef | null;
  revision: number;
  /** When an "apply to existing loans" last ran with this holiday in the calendar; null = pending. */
  appliedAt: Date | null;
  createdAt: Date;
};

export type WeekdaySet = { branch: BranchRef | null; weekdays: number[] };

export type DaysOffOverview = {
  rule: WorkingDayRule;
  /** Tenant-wide first, then each branch that has weekdays of its own. */
  weekdays: WeekdaySet[];
  holidays: HolidayView[];
  branches: BranchRef[];
};

type HolidayRow = Pick<
  DaysOffRow,
  'id' | 'name' | 'from_date' | 'to_date' | 'repayments_rescheduled_to' | 'branch_id' | 'revision' | 'applied_at'
> & {
  rescheduling_type: ReschedulingType;
  created_at: Date;
  branch_code: string | null;
  branch_name: string | null;
};

const HOLIDAY_SELECT = `select d.id, d.name, d.from_date::text as from_date, d.to_date::text as to_date,
    d.rescheduling_type, d.repayments_rescheduled_to::text as repayments_rescheduled_to,
    d.branch_id, d.revision, d.applied_at, d.created_at,
    b.code as branch_code, b.name as branch_name
  from days_off d left join hierarchy_nodes b on b.tenant_id = d.tenant_id and b.id = d.branch_id
 where d.kind = 'holiday'`;

function holidayView(r: HolidayRow): HolidayView {
  return {
    id: r.id,
    name: r.name,
    from: r.from_date!,
    to: r.to_date!,
    reschedulingType: r.rescheduling_type,
    repaymentsRescheduledTo: r.repayments_rescheduled_to,
    branch: r.branch_id ? { id: r.branch_id, code: r.branch_code ?? '', name: r.branch_name ?? '' } : null,
    revision: r.revision,
    appliedAt: r.applied_at,
    createdAt: r.created_at,
  };
}

export async function listHolidays(tx: Tx): Promise<HolidayView[]> {
  const rows = await tx.query<HolidayRow>(`${HOLIDAY_SELECT} order by d.from_date, b.code nulls first, d.name`);
  return rows.map(holidayView);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (text: string) => UUID.test(text);

export async function getHoliday(tx: Tx, id: string): Promise<HolidayView | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx.query<HolidayRow>(`${HOLIDAY_SELECT} and d.id = $1`, [id]);
  return row ? holidayView(row) : null;
}

/** The tenant's branches (hierarchy nodes of level 'branch'), for the choice of a holiday's place. */
export async function listBranches(tx: Tx): Promise<BranchRef[]> {
  return tx.query<Pick<HierarchyNodesRow, 'id' | 'code' | 'name'>>(
    `select id, code, name from hierarchy_nodes where level = 'branch' order by code`,
  );
}

export async function loadRule(tx: Tx): Promise<WorkingDayRule> {
  const [row] = await tx.query<{ due_date_on_day_off: WorkingDayRule }>(
    `select due_date_on_day_off from lending_settings`,
  );
  return row?.due_date_on_day_off ?? 'NEXT_WORKING_DAY';
}

export async function listWeekdaySets(tx: Tx): Promise<WeekdaySet[]> {
  const rows = await tx.query<{ branch_id: string | null; code: string | null; name: string | null; weekday: number }>(
    `select d.branch_id, b.code, b.name, d.weekday
       from days_off d left join hierarchy_nodes b on b.tenant_id = d.tenant_id and b.id = d.branch_id
      where d.kind = 'non_working_weekday'
      order by b.code nulls first, d.weekday`,
  );
  const sets: WeekdaySet[] = [{ branch: null, weekdays: [] }];
  for (const r of rows) {
    let set = sets.find((s) => (s.branch?.id ?? null) === r.branch_id);
    if (!set) {
      set = { branch: { id: r.branch_id!, code: r.code ?? '', name: r.name ?? '' }, weekdays: [] };
      sets.push(set);
    }
    set.weekdays.push(r.weekday);
  }
  return sets;
}

export async function daysOffOverview(tx: Tx): Promise<DaysOffOverview> {
  // Sequential: a transaction is one connection.
  const rule = await loadRule(tx);
  const weekdays = await listWeekdaySets(tx);
  const holidays = await listHolidays(tx);
  const branches = await listBranches(tx);
  return { rule, weekdays, holidays, branches };
}

/** The calendar of a branch (tenant-wide days off + the branch's), or the tenant's with null. */
export function calendarFor(tx: Tx, branchId: string | null): Promise<WorkingCalendar> {
  return loadCalendar(tx, branchId);
}

/** The JSON shape of a holiday in /v1. */
export function holidayJson(h: HolidayView) {
  return {
    id: h.id,
    name: h.name,
    from: h.from,
    to: h.to,
    reschedulingType: h.reschedulingType,
    repaymentsRescheduledTo: h.repaymentsRescheduledTo,
    branch: h.branch,
    revision: h.revision,
    status: h.appliedAt ? 'applied' : 'pending',
    appliedAt: h.appliedAt,
  };
}

export function overviewJson(o: DaysOffOverview) {
  return {
    rule: o.rule,
    fineractRule: FINERACT_RULE_NAME[o.rule],
    weekdays: o.weekdays.map((w) => ({ branch: w.branch, weekdays: w.weekdays })),
    holidays: o.holidays.map(holidayJson),
    branches: o.branches,
  };
}

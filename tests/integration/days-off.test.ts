import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import {
  addHolidayCommand,
  deleteHolidayCommand,
  setRuleCommand,
  setWeekdaysCommand,
  updateHolidayCommand,
} from '#lib/days-off/commands.ts';
import { applyDaysOff, planApply } from '#lib/days-off/apply.ts';
import { importHolidaysCommand } from '#lib/days-off/import.ts';
import { listHolidays } from '#lib/days-off/calendar.ts';
import type { WorkingDayRule } from '#lib/schedule/types.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Days off (issue 16): "a test adds a holiday on a due date and checks the moved dates against the
 * chosen rule". Loans are disbursed on Tuesday 20 January 2026, six monthly repayments: the 20th of
 * February (Fri), March (Fri), April (Mon), May (Wed), June (Sat) and July (Mon). Saturday and Sunday
 * are made non-working and Monday 20 April a holiday; the expected dates below are worked out by hand
 * from Fineract's rules as the engine implements them (src/lib/schedule/due-dates.ts):
 *  - next working day: 20 Apr → Tue 21 Apr; Sat 20 Jun → Mon 22 Jun;
 *  - same day: the holiday still moves (→ 21 Apr), the Saturday stays;
 *  - previous working day: 20 Apr → Fri 17 Apr (Sun 19, Sat 18 are off); 20 Jun → Fri 19 Jun;
 *  - next repayment day: 20 Apr → 20 May (the next regular date, a Wednesday); the regular 20 May then
 *    has to come after it: the next working day, Thu 21 May; Sat 20 Jun → Mon 20 Jul, and 20 Jul →
 *    Tue 21 Jul.
 */
const BUSINESS_DATE = '2026-01-20';
const REGULAR = ['2026-02-20', '2026-03-20', '2026-04-20', '2026-05-20', '2026-06-20', '2026-07-20'];
const EXPECTED: Record<WorkingDayRule, string[]> = {
  NEXT_WORKING_DAY: ['2026-02-20', '2026-03-20', '2026-04-21', '2026-05-20', '2026-06-22', '2026-07-20'],
  SAME_DAY: ['2026-02-20', '2026-03-20', '2026-04-21', '2026-05-20', '2026-06-20', '2026-07-20'],
  PREVIOUS_WORKING_DAY: ['2026-02-20', '2026-03-20', '2026-04-17', '2026-05-20', '2026-06-19', '2026-07-20'],
  NEXT_REPAYMENT_DAY: ['2026-02-20', '2026-03-20', '2026-05-20', '2026-05-21', '2026-07-20', '2026-07-21'],
};
const RULE_LIST = Object.keys(EXPECTED) as WorkingDayRule[];

const en = { language: 'en' as const };

describe.each(testDbKinds())('days off on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const fixtures: LendingFixture[] = [];

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
  });
  afterAll(async () => {
    for (const f of fixtures) expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
    await drop();
  });

  async function fixture(): Promise<LendingFixture> {
    const f = await createLendingFixture(db, { businessDate: BUSINESS_DATE });
    fixtures.push(f);
    return f;
  }
  const dueDates = (f: LendingFixture, loanId: string) =>
    f.db.tenant(f.tenantId, async (tx) => (await getLoanView(tx, loanId)).installments.map((i) => i.dueDate));
  const run = <O>(f: LendingFixture, work: (tx: Tx) => Promise<O>) => f.db.tenant(f.tenantId, work);
  const loanRow = (f: LendingFixture, loanId: string) =>
    run(f, async (tx) => {
      const [row] = await tx.query<{ maturity_date: string; outstanding: bigint; version: number }>(
        `select maturity_date::text as maturity_date, outstanding, version from loans where id = $1`,
        [loanId],
      );
      return row;
    });
  const auditCount = (f: LendingFixture, action: string) =>
    run(f, async (tx) => {
      const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from audit_log where action = $1`, [
        action,
      ]);
      return row.n;
    });

  test.each(RULE_LIST)('rule %s: new schedules and, after apply, existing loans', async (rule) => {
    const f = await fixture();
    const existing = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    expect(await dueDates(f, existing.loanId)).toEqual(REGULAR);
    await run(f, (tx) => repayLoan(tx, f.checker, { loanId: existing.loanId, amount: '10.00' }));
    const before = await run(f, async (tx) => (await getLoanView(tx, existing.loanId)).installments);

    await run(f, (tx) => setRuleCommand.run(tx, f.admin, { rule }, en));
    await run(f, (tx) => setWeekdaysCommand.run(tx, f.admin, { weekdays: [6, 7] }, en));
    await run(f, (tx) =>
      addHolidayCommand.run(tx, f.admin, { name: 'Easter Monday', from: '2026-04-20', to: '2026-04-20' }, en),
    );

    // A new schedule follows the rule at once.
    const fresh = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    expect(await dueDates(f, fresh.loanId)).toEqual(EXPECTED[rule]);

    // The existing loan moves only on request: first the preview, then apply.
    expect(await dueDates(f, existing.loanId)).toEqual(REGULAR);
    const plan = await run(f, (tx) => planApply(tx, f.tenantId));
    const movedHere = REGULAR.map((d, i) => [i + 1, d, EXPECTED[rule][i]] as const).filter(([, a, b]) => a !== b);
    expect(plan.moves.map((m) => [m.number, m.oldDueDate, m.newDueDate])).toEqual(movedHere);
    expect(plan.moves.every((m) => m.loanId === existing.loanId)).toBe(true);
    expect(await dueDates(f, existing.loanId)).toEqual(REGULAR); // the preview wrote nothing

    const version = (await loanRow(f, existing.loanId)).version;
    const result = await run(f, (tx) => applyDaysOff(tx, f.admin, { expectedFingerprint: plan.fingerprint }));
    expect(result.moves).toHaveLength(movedHere.length);
    expect(await dueDates(f, existing.loanId)).toEqual(EXPECTED[rule]);
    // Amounts unchanged (Fineract moves only the dates); from dates chain onto the moved due dates.
    const after = await run(f, async (tx) => (await getLoanView(tx, existing.loanId)).installments);
    expect(after.map((i) => [i.principal, i.interest, i.total, i.paid])).toEqual(
      before.map((i) => [i.principal, i.interest, i.total, i.paid]),
    );
    for (let k = 1; k < after.length; k++) expect(after[k].fromDate).toBe(after[k - 1].dueDate);
    // The summary columns follow through the 0370 trigger.
    const row = await loanRow(f, existing.loanId);
    expect(row.maturity_date).toBe(EXPECTED[rule][5]);
    expect(row.version).toBe(version + 1);
    expect(await auditCount(f, 'loan.move_due_dates')).toBe(1);
    expect(await auditCount(f, 'days_off.apply')).toBe(1);
    const [event] = await run(f, (tx) =>
      tx.query<{ type: string; object_id: string }>(
        `select type, object_id from domain_events where type = 'loan.record.move_due_dates'`,
      ),
    );
    expect(event).toEqual({ type: 'loan.record.move_due_dates', object_id: existing.loanId });
    expect((await run(f, (tx) => listHolidays(tx)))[0].appliedAt).not.toBeNull();

    // Apply twice = no change.
    const again = await run(f, (tx) => applyDaysOff(tx, f.admin));
    expect(again.moves).toEqual([]);
    expect(await dueDates(f, existing.loanId)).toEqual(EXPECTED[rule]);
    expect((await loanRow(f, existing.loanId)).version).toBe(version + 1);
    expect(await auditCount(f, 'loan.move_due_dates')).toBe(1);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  /**
   * Fineract's holiday type 1 ("reschedule to next repayment date", migration 1160): Monday 20 April
   * is such a holiday, Saturday and Sunday are off and the rule is "next working day". Worked by hand
   * from Fineract's rule as the engine implements it (src/lib/schedule/due-dates.ts; Fineract's own
   * case is tests/fixtures/fineract-holiday-cases.json, SchedulerJobsTestResults
   * testApplyType1HolidaysToLoansJobOutcome): the third due date, 20 Apr, moves to the next repayment
   * date, 20 May (Wed, the fourth installment's date), and the chain continues from there: 20 Jun is a
   * Saturday, so the rule moves it to Mon 22 Jun; then 20 Jul (Mon) and 20 Aug (Thu). The same
   * holiday following the rule would give Tue 21 Apr and keep the rest (EXPECTED.NEXT_WORKING_DAY).
   */
  const TO_NEXT_REPAYMENT = ['2026-02-20', '2026-03-20', '2026-05-20', '2026-06-22', '2026-07-20', '2026-08-20'];

  test('a holiday rescheduled to the next repayment date: new schedules and, after apply, existing loans', async () => {
    const f = await fixture();
    const existing = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    await run(f, (tx) => repayLoan(tx, f.checker, { loanId: existing.loanId, amount: '10.00' }));
    const before = await run(f, async (tx) => (await getLoanView(tx, existing.loanId)).installments);
    expect(before.map((i) => i.dueDate)).toEqual(REGULAR);

    await run(f, (tx) => setRuleCommand.run(tx, f.admin, { rule: 'NEXT_WORKING_DAY' }, en));
    await run(f, (tx) => setWeekdaysCommand.run(tx, f.admin, { weekdays: [6, 7] }, en));
    const holiday = await run(f, (tx) =>
      addHolidayCommand.run(
        tx,
        f.admin,
        { name: 'Easter Monday', from: '2026-04-20', to: '2026-04-20', reschedulingType: 'NEXT_REPAYMENT_DATE' },
        en,
      ),
    );
    expect(holiday).toMatchObject({ reschedulingType: 'NEXT_REPAYMENT_DATE', repaymentsRescheduledTo: null });
    const [audit] = await run(f, (tx) =>
      tx.query<{ before: unknown; after: Record<string, unknown> }>(
        `select before, after from audit_log where action = 'days_off.add_holiday'`,
      ),
    );
    expect(audit).toEqual({
      before: null,
      after: {
        name: 'Easter Monday',
        from: '2026-04-20',
        to: '2026-04-20',
        reschedulingType: 'NEXT_REPAYMENT_DATE',
        repaymentsRescheduledTo: null,
        branchId: null,
      },
    });

    // A new schedule follows it at once.
    const fresh = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    expect(await dueDates(f, fresh.loanId)).toEqual(TO_NEXT_REPAYMENT);

    // The existing loan: preview (nothing written), then apply.
    const plan = await run(f, (tx) => planApply(tx, f.tenantId));
    expect(plan.moves.map((m) => [m.loanId, m.number, m.oldDueDate, m.newDueDate])).toEqual([
      [existing.loanId, 3, '2026-04-20', '2026-05-20'],
      [existing.loanId, 4, '2026-05-20', '2026-06-22'],
      [existing.loanId, 5, '2026-06-20', '2026-07-20'],
      [existing.loanId, 6, '2026-07-20', '2026-08-20'],
    ]);
    expect(plan.skipped).toEqual([]);
    expect(await dueDates(f, existing.loanId)).toEqual(REGULAR);
    const result = await run(f, (tx) => applyDaysOff(tx, f.admin, { expectedFingerprint: plan.fingerprint }));
    expect(result.moves).toHaveLength(4);
    const after = await run(f, async (tx) => (await getLoanView(tx, existing.loanId)).installments);
    expect(after.map((i) => i.dueDate)).toEqual(TO_NEXT_REPAYMENT);
    // Amounts unchanged, from dates chained onto the moved due dates, maturity through the 0370 trigger.
    expect(after.map((i) => [i.principal, i.interest, i.total, i.paid])).toEqual(
      before.map((i) => [i.principal, i.interest, i.total, i.paid]),
    );
    for (let k = 1; k < after.length; k++) expect(after[k].fromDate).toBe(after[k - 1].dueDate);
    expect((await loanRow(f, existing.loanId)).maturity_date).toBe('2026-08-20');
    expect((await run(f, (tx) => applyDaysOff(tx, f.admin))).moves).toEqual([]);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

    // Applied: its rescheduling type is part of the loans' dates and cannot change any more.
    await expect(
      run(f, (tx) =>
        updateHolidayCommand.run(tx, f.admin, { id: holiday.id, reschedulingType: 'WORKING_DAY_RULE' }, en),
      ),
    ).rejects.toMatchObject({ status: 409 });
  });

  test('a holiday’s rescheduling type: consistent with its date, changed while pending, kept by the database', async () => {
    const f = await fixture();
    const add = (input: Record<string, unknown>) =>
      run(f, (tx) =>
        addHolidayCommand.run(tx, f.admin, { name: 'X', from: '2026-05-01', to: '2026-05-01', ...input } as never, en),
      );
    await expect(
      add({ reschedulingType: 'NEXT_REPAYMENT_DATE', repaymentsRescheduledTo: '2026-05-04' }),
    ).rejects.toMatchObject({
      status: 400,
      field: 'repaymentsRescheduledTo',
      message: expect.stringMatching(/^Repayments rescheduled to must be left empty/),
    });
    await expect(
      add({ reschedulingType: 'WORKING_DAY_RULE', repaymentsRescheduledTo: '2026-05-04' }),
    ).rejects.toMatchObject({ status: 400, field: 'repaymentsRescheduledTo' });
    await expect(add({ reschedulingType: 'SPECIFIED_DATE' })).rejects.toMatchObject({
      status: 400,
      field: 'repaymentsRescheduledTo',
      message: 'Repayments rescheduled to is required when due dates move to a specified date.',
    });
    await expect(add({ reschedulingType: 'SOMETIMES' })).rejects.toMatchObject({
      status: 400,
      field: 'reschedulingType',
      message: 'Rescheduling type must be one of: WORKING_DAY_RULE, SPECIFIED_DATE, NEXT_REPAYMENT_DATE.',
    });
    await expect(
      run(f, (tx) =>
        addHolidayCommand.run(
          tx,
          f.admin,
          { name: 'X', from: '2026-05-01', to: '2026-05-01', reschedulingType: 'SPECIFIED_DATE' },
          { language: 'fr' },
        ),
      ),
    ).rejects.toMatchObject({
      field: 'repaymentsRescheduledTo',
      message: 'La date de report des échéances est obligatoire quand les échéances sont reportées à une date donnée.',
    });

    // Without a type, the date decides, as before the type existed.
    expect(await add({ name: 'Rule' })).toMatchObject({ reschedulingType: 'WORKING_DAY_RULE' });
    const h = await add({ name: 'Dated', repaymentsRescheduledTo: '2026-05-04' });
    expect(h).toMatchObject({ reschedulingType: 'SPECIFIED_DATE', repaymentsRescheduledTo: '2026-05-04' });

    // A pending holiday changes type: alone, a type other than a specified date drops the old date (as
    // Fineract does); a date alone makes it a specified date; clearing that date returns it to the rule.
    const update = (input: Record<string, unknown>) =>
      run(f, (tx) => updateHolidayCommand.run(tx, f.admin, { id: h.id, ...input } as never, en));
    expect(await update({ reschedulingType: 'NEXT_REPAYMENT_DATE' })).toMatchObject({
      reschedulingType: 'NEXT_REPAYMENT_DATE',
      repaymentsRescheduledTo: null,
    });
    await expect(update({ reschedulingType: 'SPECIFIED_DATE' })).rejects.toMatchObject({
      status: 400,
      field: 'repaymentsRescheduledTo',
    });
    await expect(
      update({ reschedulingType: 'NEXT_REPAYMENT_DATE', repaymentsRescheduledTo: '2026-05-05' }),
    ).rejects.toMatchObject({ status: 400, field: 'repaymentsRescheduledTo' });
    expect(await update({ name: 'Renamed' })).toMatchObject({ reschedulingType: 'NEXT_REPAYMENT_DATE' });
    expect(await update({ repaymentsRescheduledTo: '2026-05-05' })).toMatchObject({
      reschedulingType: 'SPECIFIED_DATE',
      repaymentsRescheduledTo: '2026-05-05',
    });
    expect(await update({ repaymentsRescheduledTo: null })).toMatchObject({
      reschedulingType: 'WORKING_DAY_RULE',
      repaymentsRescheduledTo: null,
    });
    const audits = await run(f, (tx) =>
      tx.query<{ before: { reschedulingType: string }; after: { reschedulingType: string } }>(
        `select before, after from audit_log where action = 'days_off.update_holiday' order by occurred_at`,
      ),
    );
    expect(audits.map((a) => [a.before.reschedulingType, a.after.reschedulingType])).toEqual([
      ['SPECIFIED_DATE', 'NEXT_REPAYMENT_DATE'],
      ['NEXT_REPAYMENT_DATE', 'NEXT_REPAYMENT_DATE'],
      ['NEXT_REPAYMENT_DATE', 'SPECIFIED_DATE'],
      ['SPECIFIED_DATE', 'WORKING_DAY_RULE'],
    ]);

    // The check constraint keeps any other writer consistent too.
    for (const [type, date] of [
      ['NEXT_REPAYMENT_DATE', '2026-06-02'],
      ['SPECIFIED_DATE', null],
      ['WORKING_DAY_RULE', '2026-06-02'],
      ['SOON', null],
    ] as const)
      await expect(
        db.owner((tx) =>
          tx.query(
            `insert into days_off (tenant_id, kind, name, from_date, to_date, rescheduling_type, repayments_rescheduled_to)
             values ($1, 'holiday', 'Direct', '2026-06-01', '2026-06-01', $2, $3)`,
            [f.tenantId, type, date],
          ),
        ),
      ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.owner((tx) =>
        tx.query(
          `insert into days_off (tenant_id, kind, name, weekday, rescheduling_type) values ($1, 'non_working_weekday', '', 3, 'NEXT_REPAYMENT_DATE')`,
          [f.tenantId],
        ),
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });

  test('the schedule CLI gives the same dates for the next-repayment-day rule', async () => {
    const f = await fixture();
    const { loanId } = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    const terms = await run(f, async (tx) => {
      const [row] = await tx.query<{ terms: Record<string, unknown> }>(`select terms from loans where id = $1`, [
        loanId,
      ]);
      return row.terms;
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'days-off-'));
    const file = path.join(dir, 'terms.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...terms,
        calendar: {
          nonWorkingWeekdays: [6, 7],
          holidays: [{ from: '2026-04-20', to: '2026-04-20' }],
          rule: 'NEXT_REPAYMENT_DAY',
        },
      }),
    );
    const out = execFileSync(process.execPath, ['scripts/schedule.ts', file], { encoding: 'utf8' });
    const schedule = JSON.parse(out) as { installments: { dueDate: string }[] };
    expect(schedule.installments.map((i) => i.dueDate)).toEqual(EXPECTED.NEXT_REPAYMENT_DAY);
    fs.rmSync(dir, { recursive: true });
  });

  test('a branch holiday moves only that branch’s loans, new and existing', async () => {
    const f = await fixture();
    const [north, south] = await db.owner(async (tx) => {
      const rows: string[] = [];
      for (const code of ['NORTH', 'SOUTH'])
        rows.push(
          (
            await tx.query<{ id: string }>(
              `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', $2, $3) returning id`,
              [f.tenantId, code, `${code} branch`],
            )
          )[0].id,
        );
      return rows;
    });
    const customerIn = (branchId: string, n: string) =>
      run(f, async (tx) => {
        const c = await createCustomer(tx, f.admin as Actor, {
          firstName: 'Branch',
          lastName: n,
          nationalId: `NID-${n}-${f.tenantId}`,
          phone: '+33100000001',
          branchId,
        });
        return c.id;
      });
    const northCustomer = await customerIn(north, 'North');
    const southCustomer = await customerIn(south, 'South');
    const northLoan = await f.disbursedLoan({ customerId: northCustomer, principal: '600.00', numberOfRepayments: 6 });
    const southLoan = await f.disbursedLoan({ customerId: southCustomer, principal: '600.00', numberOfRepayments: 6 });

    await run(f, (tx) =>
      addHolidayCommand.run(
        tx,
        f.admin,
        { name: 'North fair', from: '2026-04-20', to: '2026-04-20', branchId: north },
        en,
      ),
    );
    const plan = await run(f, (tx) => planApply(tx, f.tenantId));
    expect(plan.moves.map((m) => [m.loanId, m.branchCode, m.oldDueDate, m.newDueDate])).toEqual([
      [northLoan.loanId, 'NORTH', '2026-04-20', '2026-04-21'],
    ]);
    await run(f, (tx) => applyDaysOff(tx, f.admin));
    expect((await dueDates(f, northLoan.loanId))[2]).toBe('2026-04-21');
    expect(await dueDates(f, southLoan.loanId)).toEqual(REGULAR);

    const newNorth = await f.disbursedLoan({ customerId: northCustomer, principal: '600.00', numberOfRepayments: 6 });
    const newSouth = await f.disbursedLoan({ customerId: southCustomer, principal: '600.00', numberOfRepayments: 6 });
    expect((await dueDates(f, newNorth.loanId))[2]).toBe('2026-04-21');
    expect(await dueDates(f, newSouth.loanId)).toEqual(REGULAR);

    // A branch's own weekdays add to the lender's (only Saturday here: Sunday 21 June is a working day);
    // every calendar must keep a working day.
    await run(f, (tx) => setWeekdaysCommand.run(tx, f.admin, { weekdays: [6], branchId: south }, en));
    const southPlan = await run(f, (tx) => planApply(tx, f.tenantId));
    expect(southPlan.moves.map((m) => [m.accountNo.length > 0, m.branchCode, m.oldDueDate, m.newDueDate])).toEqual([
      [true, 'SOUTH', '2026-06-20', '2026-06-21'],
      [true, 'SOUTH', '2026-06-20', '2026-06-21'],
    ]);
    await expect(
      run(f, (tx) => setWeekdaysCommand.run(tx, f.admin, { weekdays: [1, 2, 3, 4, 5, 7] }, en)),
    ).rejects.toMatchObject({ status: 400, field: 'weekdays' });

    // An applied holiday: its dates cannot change (409), its name can; deleting it leaves the loans as
    // they are until the next apply, which moves them back.
    const [holiday] = await run(f, (tx) => listHolidays(tx));
    await expect(
      run(f, (tx) => updateHolidayCommand.run(tx, f.admin, { id: holiday.id, to: '2026-04-21' }, en)),
    ).rejects.toMatchObject({ status: 409 });
    await expect(
      run(f, (tx) => updateHolidayCommand.run(tx, f.admin, { id: holiday.id, name: 'Fair', expectedRevision: 1 }, en)),
    ).rejects.toMatchObject({ status: 409, field: 'expectedRevision' });
    const renamed = await run(f, (tx) =>
      updateHolidayCommand.run(tx, f.admin, { id: holiday.id, name: 'Fair', expectedRevision: holiday.revision }, en),
    );
    expect(renamed.name).toBe('Fair');
    const deleted = await run(f, (tx) => deleteHolidayCommand.run(tx, f.admin, { id: holiday.id }, en));
    expect(deleted.wasApplied).toBe(true);
    expect((await dueDates(f, northLoan.loanId))[2]).toBe('2026-04-21');
    await run(f, (tx) => setWeekdaysCommand.run(tx, f.admin, { weekdays: [], branchId: south }, en));
    const back = await run(f, (tx) => planApply(tx, f.tenantId));
    expect(back.moves.map((m) => [m.loanId, m.oldDueDate, m.newDueDate]).sort()).toEqual(
      [
        [northLoan.loanId, '2026-04-21', '2026-04-20'],
        [newNorth.loanId, '2026-04-21', '2026-04-20'],
      ].sort(),
    );
  });

  test('due dates on or before the business date never move; a move onto it is listed, not made', async () => {
    const f = await fixture();
    const { loanId } = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    await setBusinessDate(db, f.tenantId, '2026-02-19');
    await run(f, (tx) => setRuleCommand.run(tx, f.admin, { rule: 'PREVIOUS_WORKING_DAY' }, en));
    // Friday 20 February off: the previous working day is Thursday 19, the business date itself.
    await run(f, (tx) =>
      addHolidayCommand.run(tx, f.admin, { name: 'Short', from: '2026-02-20', to: '2026-02-20' }, en),
    );
    const plan = await run(f, (tx) => planApply(tx, f.tenantId));
    expect(plan.moves).toEqual([]);
    expect(plan.skipped).toEqual([
      expect.objectContaining({
        loanId,
        number: 1,
        oldDueDate: '2026-02-20',
        wouldBe: '2026-02-19',
        reason: 'beforeBusinessDate',
      }),
    ]);
    await run(f, (tx) => applyDaysOff(tx, f.admin));
    expect(await dueDates(f, loanId)).toEqual(REGULAR);
  });

  test('holiday input is checked field by field', async () => {
    const f = await fixture();
    const add = (input: Record<string, unknown>) =>
      run(f, (tx) =>
        addHolidayCommand.run(tx, f.admin, { name: 'X', from: '2026-05-01', to: '2026-05-01', ...input } as never, en),
      );
    await expect(add({ from: '2026-02-30' })).rejects.toMatchObject({ status: 400, field: 'from' });
    await expect(add({ to: '2026-04-30' })).rejects.toMatchObject({ status: 400, field: 'to' });
    await expect(add({ name: '  ' })).rejects.toMatchObject({ status: 400, field: 'name' });
    await expect(add({ name: 'x'.repeat(201) })).rejects.toMatchObject({ status: 400, field: 'name' });
    await expect(add({ repaymentsRescheduledTo: '2026-05-01' })).rejects.toMatchObject({
      status: 400,
      field: 'repaymentsRescheduledTo',
    });
    await expect(add({ branchId: '00000000-0000-0000-0000-000000000000' })).rejects.toMatchObject({
      status: 400,
      field: 'branchId',
    });
    await expect(run(f, (tx) => setRuleCommand.run(tx, f.admin, { rule: 'SOMETIMES' }, en))).rejects.toMatchObject({
      status: 400,
      field: 'rule',
    });
    await add({ name: 'Labour Day', repaymentsRescheduledTo: '2026-05-04' });
    await expect(add({ name: 'Labour Day' })).rejects.toMatchObject({ status: 409 });
  });

  describe('import', () => {
    let f: LendingFixture;
    beforeAll(async () => {
      f = await fixture();
      await db.owner((tx) =>
        tx.query(`insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'B1', 'One')`, [
          f.tenantId,
        ]),
      );
    });
    const importFile = (format: 'csv' | 'ics', content: string, dryRun = false) =>
      run(f, (tx) => importHolidaysCommand.run(tx, f.admin, { format, content, dryRun }, en));
    const count = async () => (await run(f, (tx) => listHolidays(tx))).length;

    test('a CSV with one bad line is refused whole, naming the line; the fixed file imports once', async () => {
      const good = [
        'name,from,to,branch,rescheduled_to',
        'New Year,2027-01-01,2027-01-01,,',
        '"<img src=x onerror=alert(1)>",2027-05-01,2027-05-01,B1,2027-05-03',
        "=cmd|' /C calc'!A0,2027-07-14,2027-07-14,,",
      ];
      const bad = [...good.slice(0, 3), 'Bad day,2027-02-30,2027-02-30,,', ...good.slice(3)];
      const refused = await importFile('csv', bad.join('\n')).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).status).toBe(400);
      expect((refused as AppError).message).toMatch(/^Line 4: /);
      expect((refused as AppError).details?.rows).toEqual([expect.objectContaining({ row: 4, field: 'from' })]);
      expect(await count()).toBe(0);

      const preview = await importFile('csv', good.join('\r\n'), true);
      expect(preview).toMatchObject({ dryRun: true, toAdd: 3, alreadyPresent: 0, added: 0 });
      expect(await count()).toBe(0);
      const done = await importFile('csv', good.join('\r\n'));
      expect(done).toMatchObject({ toAdd: 3, added: 3 });
      const holidays = await run(f, (tx) => listHolidays(tx));
      // Hostile names are kept as the text they are.
      expect(holidays.map((h) => [h.name, h.from, h.branch?.code ?? null, h.repaymentsRescheduledTo])).toEqual([
        ['New Year', '2027-01-01', null, null],
        ['<img src=x onerror=alert(1)>', '2027-05-01', 'B1', '2027-05-03'],
        ["=cmd|' /C calc'!A0", '2027-07-14', null, null],
      ]);
      const twice = await importFile('csv', good.join('\n'));
      expect(twice).toMatchObject({ toAdd: 0, alreadyPresent: 3, added: 0 });
      expect(await count()).toBe(3);
      expect(await auditCount(f, 'days_off.import')).toBe(2);
    });

    test('CSV header and branch mistakes name line 1 or the row', async () => {
      await expect(importFile('csv', 'name,start,to\nX,2027-01-01,2027-01-01')).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/^Line 1: .*start/),
      });
      await expect(importFile('csv', 'name,from,to,branch\nX,2027-03-01,2027-03-01,NOPE')).rejects.toMatchObject({
        message: expect.stringMatching(/^Line 2: .*NOPE/),
      });
      await expect(
        importFile('csv', 'name,from,to\nA,2027-03-01,2027-03-01\nA,2027-03-01,2027-03-01'),
      ).rejects.toMatchObject({ message: expect.stringMatching(/^Line 3: /) });
    });

    const ics = (events: string[]) =>
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//Test//Holidays//EN',
        'CALSCALE:GREGORIAN',
        'X-WR-CALNAME:Holidays',
        ...events,
        'END:VCALENDAR',
      ].join('\r\n') + '\r\n';
    const event = (lines: string[]) => [
      'BEGIN:VEVENT',
      'UID:x@test',
      'DTSTAMP:20260101T000000Z',
      ...lines,
      'END:VEVENT',
    ];

    test('an iCalendar file of all-day events imports; one bad event refuses it whole, naming the line', async () => {
      const good = [
        ...event(['DTSTART;VALUE=DATE:20280101', 'DTEND;VALUE=DATE:20280102', 'SUMMARY:New Year 2028']),
        ...event([
          'DTSTART;VALUE=DATE:20281224',
          'DTEND;VALUE=DATE:20281227',
          'SUMMARY:Christmas\\, long',
          ' weekend <script>alert(1)</script>',
        ]),
        ...event(['DTSTART:20280714', 'SUMMARY:Bastille Day']),
      ];
      // Line 6 is the first event's BEGIN; its DTSTART is on line 9.
      const withTime = ics([...event(['DTSTART:20280501T090000Z', 'SUMMARY:Meeting']), ...good]);
      const refused = await importFile('ics', withTime).catch((e: unknown) => e);
      expect((refused as AppError).message).toMatch(/^Line 9: DTSTART/);
      const recurring = ics([...good.slice(0, -1), 'RRULE:FREQ=YEARLY', 'END:VEVENT']);
      await expect(importFile('ics', recurring)).rejects.toMatchObject({
        message: expect.stringMatching(/^Line \d+: RRULE/),
      });
      await expect(importFile('ics', ics(['BEGIN:VTODO', 'END:VTODO']))).rejects.toMatchObject({ status: 400 });
      await expect(importFile('ics', 'hello')).rejects.toMatchObject({ message: expect.stringMatching(/^Line 1: /) });
      const before = await count();
      const preview = await importFile('ics', ics(good), true);
      expect(preview.rows.map((r) => [r.line, r.name, r.from, r.to])).toEqual([
        [6, 'New Year 2028', '2028-01-01', '2028-01-01'],
        [13, 'Christmas, longweekend <script>alert(1)</script>', '2028-12-24', '2028-12-26'],
        [21, 'Bastille Day', '2028-07-14', '2028-07-14'],
      ]);
      expect(await count()).toBe(before);
      expect((await importFile('ics', ics(good))).added).toBe(3);
      expect((await importFile('ics', ics(good))).added).toBe(0);
    });

    test('the optional rescheduling_type column: any case, empty follows the date, inconsistent lines refused', async () => {
      const good = [
        'name,from,to,rescheduled_to,rescheduling_type',
        'Next,2029-04-02,2029-04-02,,next_repayment_date',
        'Dated,2029-05-01,2029-05-01,2029-05-02,SPECIFIED_DATE',
        'Implied,2029-05-08,2029-05-08,2029-05-09,',
        'Rule,2029-07-14,2029-07-14,,Working_Day_Rule',
      ];
      const bad = [
        ...good,
        'Both,2029-08-15,2029-08-15,2029-08-16,NEXT_REPAYMENT_DATE',
        'Missing,2029-11-01,2029-11-01,,SPECIFIED_DATE',
        'Unknown,2029-11-11,2029-11-11,,LATER',
      ];
      const refused = await importFile('csv', bad.join('\n')).catch((e: unknown) => e);
      expect((refused as AppError).status).toBe(400);
      expect((refused as AppError).message).toMatch(/^Line 6: Repayments rescheduled to must be left empty/);
      expect((refused as AppError).details?.rows).toEqual([
        expect.objectContaining({ row: 6, field: 'repaymentsRescheduledTo' }),
        expect.objectContaining({ row: 7, field: 'repaymentsRescheduledTo' }),
        expect.objectContaining({ row: 8, field: 'reschedulingType' }),
      ]);
      const before = await count();
      const preview = await importFile('csv', good.join('\n'), true);
      expect(preview.rows.map((r) => [r.line, r.name, r.reschedulingType, r.repaymentsRescheduledTo])).toEqual([
        [2, 'Next', 'NEXT_REPAYMENT_DATE', null],
        [3, 'Dated', 'SPECIFIED_DATE', '2029-05-02'],
        [4, 'Implied', 'SPECIFIED_DATE', '2029-05-09'],
        [5, 'Rule', 'WORKING_DAY_RULE', null],
      ]);
      expect(await count()).toBe(before);
      expect((await importFile('csv', good.join('\n'))).added).toBe(4);
      const stored = (await run(f, (tx) => listHolidays(tx))).filter((h) => h.from.startsWith('2029'));
      expect(stored.map((h) => [h.name, h.reschedulingType, h.repaymentsRescheduledTo])).toEqual([
        ['Next', 'NEXT_REPAYMENT_DATE', null],
        ['Dated', 'SPECIFIED_DATE', '2029-05-02'],
        ['Implied', 'SPECIFIED_DATE', '2029-05-09'],
        ['Rule', 'WORKING_DAY_RULE', null],
      ]);
    });
  });
});

import { AppError } from '../errors/app-error.ts';
import { applyCharges, lastRegularDueDate } from './charges.ts';
import { generateCumulative } from './cumulative.ts';
import { unadjustedDueDates } from './due-dates.ts';
import type { MoneyContext } from './fineract-money.ts';
import { scheduleToJson } from './json.ts';
import { generateProgressive } from './progressive.ts';
import { parseCalendar, parseTerms } from './terms.ts';
import { checkVariations } from './variations.ts';
import { progressiveTrancheSchedule } from './tranches.ts';
import { previewRecalculatedSchedule, wantsRecalculation } from './recalculation.ts';
import './recalculation-cumulative.ts';
import type { Schedule, ScheduleJson, ScheduleTerms, WorkingCalendar } from './types.ts';

/**
 * Generates the repayment schedule for validated terms (conventions in README.md): the cumulative or
 * the progressive engine, then totals. Pure: the same terms and calendar always give the same schedule.
 */
export function generateSchedule(terms: ScheduleTerms, calendar?: WorkingCalendar): Schedule {
  const [firstDue] = unadjustedDueDates(
    terms.expectedDisbursementDate,
    terms.firstRepaymentDate,
    1,
    terms.repaymentFrequency,
    terms.repaymentEvery,
  );
  if (terms.disbursementDate >= firstDue) {
    throw new AppError('BAD_REQUEST', `disbursementDate: must be before the first due date ${firstDue}`, {
      field: 'disbursementDate',
    });
  }
  const ctx: MoneyContext = {
    digits: terms.digits,
    mode: terms.roundingMode,
    currencyMultiple: terms.digits === 0 ? terms.currencyInMultiplesOf : 0,
    installmentMultiple: terms.installmentAmountInMultiplesOf,
  };
  if (terms.variations?.length) {
    // Fineract's checks against the schedule without variations (variations.ts).
    const base = generateSchedule({ ...terms, variations: undefined }, calendar);
    checkVariations(
      terms.variations,
      base.installments.map((i) => i.dueDate),
      terms.disbursementDate,
    );
  }
  const installments =
    terms.scheduleType === 'PROGRESSIVE'
      ? terms.disbursements
        ? progressiveTrancheSchedule(terms, ctx, terms.disbursements, calendar)
        : generateProgressive(terms, ctx, calendar)
      : generateCumulative(terms, ctx, calendar);
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n };
  for (const i of installments) {
    totals.principal += i.principal;
    totals.interest += i.interest;
    totals.fees += i.fees;
    totals.penalties += i.penalties;
    totals.total += i.total;
  }
  return applyCharges(
    {
      currency: terms.currency,
      digits: terms.digits,
      installments,
      totals,
      ...(terms.disbursements ? { disbursements: terms.disbursements.map((d) => ({ ...d })) } : {}),
    },
    terms,
    ctx,
  );
}

/** Terms JSON (with an optional `calendar`) → contract JSON. Used by the CLI and the preview endpoint. */
export function previewSchedule(input: unknown): ScheduleJson {
  // Interest recalculation: terms with `interestRecalculation`, `transactions` or `asOf` (recalculation.ts).
  if (wantsRecalculation(input)) {
    refuseChargeAfterMaturity(input);
    return previewRecalculatedSchedule(input);
  }
  const terms = parseTerms(input);
  const calendar = parseCalendar((input as { calendar?: unknown }).calendar);
  return scheduleToJson(generateSchedule(terms, calendar));
}

/**
 * The recalculating engines lay out their own installments and have no N+1 installment: a
 * specified-due-date charge dated after the last due date of the terms' schedule is refused by name
 * there (it would otherwise be left out of the schedule).
 */
function refuseChargeAfterMaturity(input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  const plain: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const calendar = plain.calendar;
  for (const key of ['interestRecalculation', 'transactions', 'asOf', 'calendar']) delete plain[key];
  const charges = Array.isArray(plain.charges) ? (plain.charges as unknown[]) : [];
  const dated = charges
    .map((c, k) => ({ k, c: c as Record<string, unknown> | null }))
    .filter(
      ({ c }) => typeof c?.dueDate === 'string' && String(c?.timing ?? '').toUpperCase() === 'SPECIFIED_DUE_DATE',
    );
  if (dated.length === 0) return;
  let maturity: string | null;
  try {
    maturity = lastRegularDueDate(
      generateSchedule(parseTerms({ ...plain, charges: [] }), parseCalendar(calendar)).installments,
    );
  } catch {
    return; // bad terms: the recalculating parser names the field
  }
  for (const { k, c } of dated) {
    if (maturity !== null && (c!.dueDate as string) > maturity)
      throw new AppError(
        'BAD_REQUEST',
        `charges[${k}].dueDate: a charge after the last due date (${maturity}) is not supported with interest recalculation`,
        { field: `charges[${k}].dueDate`, details: { reason: 'CHARGE_AFTER_MATURITY_WITH_RECALCULATION' } },
      );
  }
}

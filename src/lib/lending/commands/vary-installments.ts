import { z } from 'zod';
import { need } from '#lib/auth/permissions.ts';
import type { Tx } from '#lib/db/index.ts';
import { defineCommand } from '#lib/http/command.ts';
import { formatMinor } from '#lib/money/money.ts';
import { generateSchedule, parseTerms, scheduleToJson } from '#lib/schedule/index.ts';
import type { ScheduleJson, ScheduleVariation } from '#lib/schedule/index.ts';
import { checkVariations } from '#lib/schedule/variations.ts';
import type { Actor } from '../actor.ts';
import { assertUuid } from '../loans.ts';
import { loadCalendar, termsFor, type ProductRow } from '../products.ts';
import { refusal } from '../refusal.ts';
import { auditSuccess, openLoanForCommand, updateLoan } from './common.ts';

/**
 * Variable installments and a loan's own installment amount, before disbursement (Fineract's
 * "schedule exceptions" of a variable-installment product, and `fixedEmiAmount`). On a loan still
 * pending approval or approved, the user moves a due date, fixes an installment's amount, inserts or
 * deletes an installment, and/or gives the loan its own EMI; the engine recomputes the rest
 * (src/lib/schedule/variations.ts). With `preview` nothing is stored: the answer is the schedule the
 * loan would get. Otherwise the edits replace the loan's previous ones in its terms snapshot
 * (`loans.terms.variations`, `loans.terms.fixedEmiAmount`), which disbursement passes to the engine.
 * An empty list and no amount clear them. Audited as loan.vary_installments with before and after.
 */

const dateText = z.string().max(20);
const amountText = z.union([z.string().max(40), z.number()]);

export const varyInstallmentsInput = z
  .object({
    loanId: z.string().max(64),
    variations: z
      .array(
        z
          .object({
            type: z.enum(['DUE_DATE', 'AMOUNT', 'INSERT', 'DELETE']),
            dueDate: dateText,
            newDueDate: dateText.optional(),
            amount: amountText.optional(),
          })
          .strict(),
      )
      .max(240)
      .default([]),
    fixedEmiAmount: amountText.nullish(),
    preview: z.boolean().optional(),
  })
  .strict();
export type VaryInstallmentsInput = z.input<typeof varyInstallmentsInput>;

/** The edits kept in a loan's terms snapshot (what disbursement passes to the engine). */
export function installmentEditsOf(terms: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const edits: Record<string, unknown> = {};
  if (Array.isArray(terms?.variations) && terms.variations.length > 0) edits.variations = terms.variations;
  if (typeof terms?.fixedEmiAmount === 'string') edits.fixedEmiAmount = terms.fixedEmiAmount;
  return edits;
}

/** The variations as the terms JSON writes them (amounts as decimal strings). */
function variationsJson(variations: ScheduleVariation[], digits: number): Record<string, unknown>[] {
  return variations.map((v) => {
    const out: Record<string, unknown> = { type: v.type, dueDate: v.dueDate };
    if (v.type === 'DUE_DATE') out.newDueDate = v.newDueDate;
    if ('amount' in v && v.amount !== undefined) out.amount = formatMinor(v.amount, digits);
    return out;
  });
}

export type VaryInstallmentsResult = {
  loanId: string;
  preview: boolean;
  variations: Record<string, unknown>[];
  fixedEmiAmount: string | null;
  schedule: ScheduleJson;
};

export async function varyInstallments(
  tx: Tx,
  actor: Actor,
  raw: VaryInstallmentsInput,
): Promise<VaryInstallmentsResult> {
  const input = varyInstallmentsInput.parse(raw);
  assertUuid(input.loanId, 'loanId');
  const { loan, product } = await openLoanForCommand(tx, actor, input.loanId);
  if (loan.status !== 'SUBMITTED_AND_PENDING_APPROVAL' && loan.status !== 'APPROVED') {
    throw refusal('variations_after_disbursement', { field: 'status', reason: 'wrong_state' });
  }
  if (input.variations.length > 0 && product.allow_variable_installments !== true) {
    throw refusal('variable_installments_not_allowed', { status: 'UNPROCESSABLE', field: 'variations' });
  }
  const fixedEmi = input.fixedEmiAmount == null || input.fixedEmiAmount === '' ? null : String(input.fixedEmiAmount);
  if (fixedEmi !== null && product.allow_fixed_emi !== true) {
    throw refusal('fixed_emi_not_allowed', { status: 'UNPROCESSABLE', field: 'fixedEmiAmount' });
  }
  const disbursementDate = loan.expected_disbursement_date ?? loan.submitted_on;
  const baseTerms = termsFor(product, {
    principal: loan.principal,
    numberOfRepayments: loan.number_of_repayments,
    annualInterestRate: loan.annual_interest_rate,
    disbursementDate,
  });
  const calendar = await loadCalendar(tx, loan.customer_branch_id);
  const terms = parseTerms({
    ...baseTerms,
    variations: input.variations,
    ...(fixedEmi !== null ? { fixedEmiAmount: fixedEmi } : {}),
  });
  const variations = terms.variations ?? [];
  if (variations.length > 0) {
    // The product's gaps between installments (Fineract minimumGap / maximumGap), on top of the engine's checks.
    const base = generateSchedule({ ...terms, variations: undefined }, calendar);
    checkVariations(
      variations,
      base.installments.map((i) => i.dueDate),
      disbursementDate,
      gapsOf(product),
    );
  }
  const schedule = generateSchedule(terms, calendar);
  const stored = variationsJson(variations, product.digits_after_decimal);
  const result: VaryInstallmentsResult = {
    loanId: loan.id,
    preview: input.preview === true,
    variations: stored,
    fixedEmiAmount: fixedEmi === null ? null : formatMinor(terms.fixedEmiAmount ?? 0n, product.digits_after_decimal),
    schedule: scheduleToJson(schedule),
  };
  if (input.preview) return result;

  const before = installmentEditsOf(loan.terms);
  const nextTerms: Record<string, unknown> = { ...loan.terms };
  delete nextTerms.variations;
  delete nextTerms.fixedEmiAmount;
  if (stored.length > 0) nextTerms.variations = stored;
  if (result.fixedEmiAmount !== null) nextTerms.fixedEmiAmount = result.fixedEmiAmount;
  await updateLoan(tx, loan, { terms: nextTerms });
  await auditSuccess(tx, actor, 'loan.vary_installments', 'loan', loan.id, before, installmentEditsOf(nextTerms));
  return result;
}

function gapsOf(product: ProductRow): { minimumGapDays: number | null; maximumGapDays: number | null } {
  return {
    minimumGapDays: product.variable_installment_min_gap_days ?? null,
    maximumGapDays: product.variable_installment_max_gap_days ?? null,
  };
}

/** POST /v1/loans/{id}/installment-variations and the loan page's form: same checks, same audit. */
export const varyInstallmentsCommand = defineCommand({
  action: 'loan.vary_installments',
  objectType: 'loan',
  permission: need('loans.loans.transfer_funds'),
  input: varyInstallmentsInput,
  run: (tx, actor, input) => varyInstallments(tx, actor, input),
});

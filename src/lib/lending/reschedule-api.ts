import { z } from 'zod';
import { dateField } from './api.ts';
import type { RescheduleInput } from './commands/reschedule-loan.ts';

/**
 * The body of a reschedule request (POST /v1/loans/{id}/reschedule-requests) and the query of its
 * preview (GET …/reschedule-requests/preview): the same fields, read once here.
 */
const count = z.coerce.number().int().min(0).max(120);
const rate = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .refine((v) => /^\d{1,4}(\.\d{1,6})?$/.test(v) && Number(v) <= 1000, {
    message: 'must be a percentage from 0 to 1000',
  });

export const RescheduleBody = z.object({
  rescheduleFromDate: dateField,
  newInterestRate: rate.nullish(),
  adjustedDueDate: dateField.nullish(),
  extraTerms: count.nullish(),
  graceOnPrincipal: count.nullish(),
  graceOnInterest: count.nullish(),
  reason: z.string().max(500).nullish(),
});

export const DecisionBody = z.object({ note: z.string().max(500).nullish() });

/** The preview's query string → the same input (empty parameters are absent). */
export function rescheduleInputFromQuery(url: URL): RescheduleInput {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(RescheduleBody.shape)) {
    const value = url.searchParams.get(key);
    if (value !== null && value.trim() !== '') raw[key] = value.trim();
  }
  return RescheduleBody.parse(raw);
}

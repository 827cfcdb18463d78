import { z } from 'zod';
import { parseDateInput } from '../dates/parse-date.ts';
import { validationMessage } from '../errors/messages.ts';
import type { AmountOptions } from '../money/parse.ts';
import { amountTextSchema } from '../money/schema.ts';

/**
 * zod fields for the API's edge built on the one money parser and the one date check, so every
 * endpoint refuses the same inputs with the same labelled, translated message (the issue carries
 * the message key; src/lib/errors/messages.ts writes it in the request's language).
 */

type Problem = { key: string; params: Record<string, string | number> };

function fail(ctx: z.RefinementCtx, problem: Problem): typeof z.NEVER {
  ctx.addIssue({
    code: 'custom',
    message: validationMessage('en', problem.key, problem.params),
    params: { key: problem.key, params: problem.params },
  });
  return z.NEVER;
}

/**
 * An amount as decimal text ("10.50"); the currency's decimals and bound are the command's to check.
 * The schema is the one shared with the islands (src/lib/money/schema.ts).
 */
export function zodAmount(options: Omit<AmountOptions, 'digits' | 'max' | 'isFormOnly'> = {}) {
  // Wrapped in a classic schema so endpoints keep `.optional()` and the other classic methods.
  return z.unknown().pipe(amountTextSchema(options));
}

/** A real calendar date 'YYYY-MM-DD' (business rules such as "not before the business date" are the command's). */
export function zodDate() {
  return z.unknown().transform((value, ctx): string => {
    const result = parseDateInput(value);
    return result.ok ? result.date : fail(ctx, result.problem);
  });
}

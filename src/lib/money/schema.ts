import * as z from 'zod/mini';
import { validationMessage, zodIssueKey } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import { checkAmountText, parseAmount, type AmountOptions, type AmountProblem } from './parse.ts';

/**
 * zod schemas for amount fields, shared by the /v1 endpoints (inside their body schemas) and by the
 * islands (their pre-checks before sending). Both run the one parser (./parse.ts) and report a
 * refusal the same way: a custom issue whose params carry the message key, which
 * src/lib/errors/messages.ts writes in the reader's language. So the words an island shows under a
 * field are the words the server would answer.
 *
 * Built on `zod/mini` (the same zod, in its small tree-shakable form): an island that imports this
 * pays a few kilobytes, not the full library. A mini schema sits inside a classic `z.object` as is.
 * No server imports here.
 */

export type AmountFieldOptions = Omit<AmountOptions, 'digits' | 'isFormOnly'>;

function refuse(ctx: { issues: unknown[] }, value: unknown, problem: AmountProblem): never {
  (ctx.issues as z.core.$ZodRawIssue[]).push({
    code: 'custom',
    input: value,
    message: validationMessage('en', problem.key, problem.params),
    params: { key: problem.key, params: problem.params },
  });
  return z.NEVER as never;
}

/**
 * An amount in a currency of `currencyDigits` decimals, read into minor units (bigint): the
 * currency's decimals, the sign and zero rules of `options`, and the bound. Islands use it once they
 * know the currency; so do endpoints whose currency is fixed before the body is read.
 */
export function amountSchema(currencyDigits: number, options: AmountFieldOptions = {}) {
  return z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx): bigint => {
      const result = parseAmount(value, { ...options, digits: currencyDigits });
      return result.ok ? result.minor : refuse(ctx, value, result.problem);
    }),
  );
}

/**
 * An amount as plain decimal text ("10.50") when the currency is not known yet (the API edge, before
 * the loan is read): its form only — type, characters, separators, sign, length. The command then
 * reads it with the currency's decimals and the bound (`parseMinor`), with the same messages.
 */
export function amountTextSchema(options: Omit<AmountFieldOptions, 'max'> = {}) {
  return z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx): string => {
      const result = checkAmountText(value, options);
      return result.ok ? result.text : refuse(ctx, value, result.problem);
    }),
  );
}

type Parsed<T> = { success: true; data: T } | { success: false; error: { issues: readonly z.core.$ZodIssue[] } };

/**
 * The message of a failed `safeParse` of an amount schema, for the field `field`, in `language`
 * (what the server would answer for that field); null when it passed.
 */
export function amountMessage<T>(parsed: Parsed<T>, language: Language, field = 'amount'): string | null {
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const { key, params } = zodIssueKey({ ...issue, path: [] } as Parameters<typeof zodIssueKey>[0]);
  return validationMessage(language, key, params, field);
}

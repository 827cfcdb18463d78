import { formatMinorPlain } from '#lib/money/parse.ts';
import { currencyDigits } from '#lib/money/money.ts';
import { amountMessage, amountSchema } from '#lib/money/schema.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import { readableAmount, validationMessage } from '#lib/errors/messages.ts';
import type { Language } from '#lib/i18n/index.ts';

/**
 * The repayment form's checks, with the server's own parser and words (no float). LoanActions imports
 * this module when a repayment is first submitted: the parser, the date rules and the message texts
 * weigh more than the form itself, and most visits to a loan page never submit one.
 */
export type RepaymentContext = { currency: string; language: Language; businessDate: string };

/** The amount as the server will read it, or the field at fault with the server's message. */
export function checkRepayment(
  context: RepaymentContext,
  amount: string,
  date: string,
): { field: 'amount' | 'date'; message: string } | { text: string } {
  const digits = currencyDigits(context.currency);
  const parsed = amountSchema(digits, { decimalComma: context.language === 'fr' }).safeParse(amount);
  if (!parsed.success) return { field: 'amount', message: amountMessage(parsed, context.language, 'amount') ?? '' };
  const day = parseDateInput(date, { max: context.businessDate, maxIsBusinessDate: true });
  if (!day.ok)
    return { field: 'date', message: validationMessage(context.language, day.problem.key, day.problem.params, 'date') };
  return { text: formatMinorPlain(parsed.data, digits) };
}

/** A decimal amount the server wrote, as people read it in the language ("1 200,50" in French). */
export function readableCredit(amount: string, language: Language): string {
  return readableAmount(amount, language);
}

import type { TFunction } from 'i18next';
import type { FieldError } from './validate.ts';
import type { FormProblem } from './check.ts';

/** Field errors as messages in the page's language, by field (the `errors` prop of FormFields.astro). */
export function fieldErrorMessages(t: TFunction, errors: readonly FieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const error of errors) out[error.field] ??= t(`forms:errors.${error.key}`, error.params ?? {});
  return out;
}

/** A form document problem in words ("ui.fields.Channel.options: Add at least one option."). */
export function problemMessage(t: TFunction, problem: FormProblem): string {
  return t(`forms:problems.${problem.key}`, problem.params ?? {});
}

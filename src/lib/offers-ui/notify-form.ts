import { orderedFieldNames, type FormDocument } from '../forms/document.ts';
import { isRequired, keptAnswers, visibleNames } from '../forms/fields.ts';

/**
 * The tenant's notification form (notify_customer_modal_config.form, a form document of src/lib/forms)
 * as the offer page's dialog runs it: which fields show for the values chosen so far, which required
 * ones are still missing, and what is sent. Pure, on the forms core's rules, so the island, the server
 * (validateAnswers) and the tests agree (a field hidden by `visibleWhen` is neither shown, required
 * nor sent).
 */
export type FormValues = Record<string, string>;

/** The names of the visible fields for the values so far, in form order. */
export function shownFields(form: FormDocument, values: FormValues): string[] {
  const visible = visibleNames(form, values);
  return orderedFieldNames(form).filter((name) => visible.has(name) && form.ui.fields[name]);
}

/** Names of the visible required fields without a value (trimmed), in form order. */
export function missingFields(form: FormDocument, values: FormValues): string[] {
  return shownFields(form, values).filter((name) => isRequired(form, name) && !(values[name] ?? '').trim());
}

/** The body to send: visible fields with a value, trimmed (a hidden field's stale value is dropped). */
export function submittedValues(form: FormDocument, values: FormValues): FormValues {
  const trimmed = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value.trim()]));
  return keptAnswers(form, trimmed) as FormValues;
}

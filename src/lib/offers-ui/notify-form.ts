import type { FormDefinition, FormField } from '../tenancy/config.ts';

/**
 * The tenant's notification form (notify_customer_modal_config.form) as the offer page's modal runs
 * it: which fields show for the values chosen so far, and which required ones are still missing.
 * Pure, so the island and its tests agree on the rules (a field hidden by `visibleWhen` is neither
 * shown, required nor sent).
 */
export type FormValues = Record<string, string>;

export function isFieldVisible(field: FormField, values: FormValues): boolean {
  if (!field.visibleWhen) return true;
  return field.visibleWhen.in.includes(values[field.visibleWhen.field] ?? '');
}

export function visibleFields(form: FormDefinition, values: FormValues): FormField[] {
  return form.fields.filter((f) => isFieldVisible(f, values));
}

/** Names of the visible required fields without a value (trimmed), in form order. */
export function missingFields(form: FormDefinition, values: FormValues): string[] {
  return visibleFields(form, values)
    .filter((f) => f.required && !(values[f.name] ?? '').trim())
    .map((f) => f.name);
}

/** The body to send: only visible fields with a value (a hidden field's stale value is dropped). */
export function submittedValues(form: FormDefinition, values: FormValues): FormValues {
  const out: FormValues = {};
  for (const field of visibleFields(form, values)) {
    const value = (values[field.name] ?? '').trim();
    if (value) out[field.name] = value;
  }
  return out;
}

import type { TFunction } from 'i18next';
import type { Db } from '../../server/db.ts';
import type { FormDocument } from '#lib/forms/document.ts';
import { customFieldErrors, customFieldsOf, shownValues, type ShownValue } from '#lib/forms/custom-fields.ts';
import type { CustomFieldEntity } from '#lib/forms/store.ts';
import { fieldErrorMessages } from '#lib/forms/messages.ts';
import type { Language } from '#lib/i18n/index.ts';

/**
 * Page glue of customized fields (src/lib/forms/custom-fields.ts): the entity's form for a page of the
 * tenant, the refused fields' messages in the page's language, and the values to show with labels.
 */
export async function customFieldDoc(
  db: Db,
  tenantId: string | undefined,
  entity: CustomFieldEntity,
): Promise<FormDocument | null> {
  if (!tenantId) return null;
  return db.tenant(tenantId, (tx) => customFieldsOf(tx, entity));
}

/** Messages by field for FormFields.astro from a refusal whose field is `customFields.<name>`. */
export function customFieldMessages(
  t: TFunction,
  error: { field?: string } | null | undefined,
  details?: Record<string, unknown>,
): Record<string, string> {
  if (!error?.field?.startsWith('customFields.')) return {};
  const messages = fieldErrorMessages(t, customFieldErrors({ details }));
  const name = error.field.slice('customFields.'.length);
  if (!messages[name]) messages[name] = t('forms:errors.invalid');
  return messages;
}

/** Whether a refusal is about a customized field (the page then shows it next to the field). */
export function isCustomFieldError(error: { field?: string } | null | undefined): boolean {
  return Boolean(error?.field?.startsWith('customFields.'));
}

/** The values with their labels, in the page's language. */
export function customFieldRows(
  t: TFunction,
  doc: FormDocument | null,
  raw: unknown,
  language: Language,
  currency: string,
): ShownValue[] {
  return shownValues(doc, raw, { language, currency, yes: t('customfields:yes'), no: t('customfields:no') });
}

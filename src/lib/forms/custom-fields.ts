import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { formatDate, formatNumber, formatDecimalMoney } from '../i18n/format.ts';
import type { Language } from '../i18n/index.ts';
import { CHOICE_WIDGETS, orderedFieldNames, textOf, type FormDocument } from './document.ts';
import { coercePosted, type Answers } from './fields.ts';
import { customFieldForm, type CustomFieldEntity } from './store.ts';
import { validateAnswers, type FieldError } from './validate.ts';

/**
 * Customized fields where they are used: the extra fields an administrator defined for customers,
 * loan applications and collaterals (one form document per entity, ./store.ts), their values in each
 * row's `custom_fields` jsonb column.
 *
 * Rules (the same for the pages' plain forms and the /v1 APIs):
 * - Values are checked against the entity's form with `validateAnswers` (Ajv), after `coercePosted`
 *   for an HTML post. A refusal is a 400 whose field is `customFields.<name>` (the first field in form
 *   order) and whose `details.errors` lists every field's error; pages show them next to the fields.
 * - An API caller names fields that exist: an unknown name is a 400 naming it.
 * - On create, every required field must be answered. On an edit the customized fields are checked
 *   only when they are sent (an API edit without `customFields` leaves them as they are), and a field
 *   made required after the row was created does not block the edit while it is still empty: it was
 *   valid when saved and nobody is made to fill a field to change something else. Clearing a
 *   required field that had a value is refused.
 * - Values of fields later removed from the form stay in the row (they are not lost by an edit) but
 *   are neither shown nor editable; a field that comes back finds its value again.
 */

/** A row's customized values as stored (anything but an object reads as none). */
export type CustomValues = Record<string, unknown>;

/** Where posted customized fields live in an entity's own HTML form: `cf.<name>`. */
export const CUSTOM_FIELD_PREFIX = 'cf.';

/** At most this many customized values in one request (the form has at most 20 × 60 fields). */
const MAX_VALUES = 1_200;

export function storedValues(raw: unknown): CustomValues {
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as CustomValues) : {};
}

/** The entity's customized fields (null when the tenant defined none, or defined an empty form). */
export async function customFieldsOf(tx: Tx, entity: CustomFieldEntity): Promise<FormDocument | null> {
  const form = await customFieldForm(tx, entity);
  if (!form || orderedFieldNames(form.document).length === 0) return null;
  return form.document;
}

/** The editable fields of a form (a document whose `ui` names a field without schema skips it). */
export function customFieldNames(doc: FormDocument): string[] {
  return orderedFieldNames(doc).filter((name) => doc.schema.properties[name] && doc.ui.fields[name]);
}

/** The `cf.`-prefixed entries of a plain form post, typed as the schema wants (`coercePosted`). */
export function postedCustomFields(doc: FormDocument, data: FormData | Record<string, unknown>): Answers {
  const posted: Record<string, string> = {};
  const entries = data instanceof FormData ? [...data.entries()] : Object.entries(data);
  for (const [key, value] of entries) {
    if (key.startsWith(CUSTOM_FIELD_PREFIX) && typeof value === 'string')
      posted[key.slice(CUSTOM_FIELD_PREFIX.length)] = value;
  }
  return coercePosted(doc, posted, customFieldNames(doc));
}

/** Posted strings by field name (without the `cf.` prefix), typed as the schema wants (`coercePosted`). */
export function coerceCustomPosted(doc: FormDocument, posted: Record<string, string>): Answers {
  return coercePosted(doc, posted, customFieldNames(doc));
}

/** A form's values with the `cf.` prefix, without it (what the commands take). */
export function unprefixed(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([key]) => key.startsWith(CUSTOM_FIELD_PREFIX))
      .map(([key, value]) => [key.slice(CUSTOM_FIELD_PREFIX.length), value]),
  );
}

/** The values as a form shows them: the stored ones of the current fields (removed fields are not shown). */
export function formValues(doc: FormDocument | null, raw: unknown): Answers {
  if (!doc) return {};
  const values = storedValues(raw);
  return Object.fromEntries(
    customFieldNames(doc)
      .filter((n) => n in values)
      .map((n) => [n, values[n]]),
  );
}

export class CustomFieldsError extends AppError {
  readonly errors: FieldError[];
  constructor(errors: FieldError[], doc: FormDocument | null) {
    const first = errors[0]!;
    const label = doc ? textOf(doc.ui.fields[first.field]?.label, 'en') || first.field : first.field;
    super('BAD_REQUEST', `${label}: ${describe(first)}`, {
      field: `customFields.${first.field}`,
      details: { errors },
    });
    this.errors = errors;
  }
}

/** An English sentence for API callers (pages translate `details.errors` with fieldErrorMessages). */
function describe(error: FieldError): string {
  const limit = error.params?.limit;
  switch (error.key) {
    case 'required':
      return 'is required';
    case 'choice':
      return 'must be one of the options';
    case 'minLength':
    case 'maxLength':
      return `must have ${error.key === 'minLength' ? 'at least' : 'at most'} ${limit} characters`;
    case 'minimum':
    case 'minAmount':
    case 'dateMin':
      return `must be ${limit} or more`;
    case 'maximum':
    case 'maxAmount':
    case 'dateMax':
      return `must be ${limit} or less`;
    case 'money':
      return 'must be an amount such as 1500.50';
    case 'date':
      return 'must be a date YYYY-MM-DD';
    case 'email':
      return 'must be an e-mail address';
    case 'integer':
      return 'must be a whole number';
    case 'type':
      return 'must be a number';
    default:
      return 'is not valid';
  }
}

/**
 * Checks customized values and gives the row's new `custom_fields`: the checked values of the
 * current fields, plus the stored values of fields no longer in the form. `before` is the row's
 * stored value on an edit (null on create). Throws CustomFieldsError (400) naming the field.
 */
export function checkCustomValues(
  doc: FormDocument | null,
  input: unknown,
  before: unknown | null,
  options: { isApi?: boolean } = {},
): CustomValues {
  const previous = storedValues(before);
  if (input === undefined || input === null) {
    if (!doc) return previous;
    input = {};
  }
  if (typeof input !== 'object' || Array.isArray(input))
    throw new AppError('BAD_REQUEST', 'customFields must be an object of field names and values', {
      field: 'customFields',
    });
  const values = input as Answers;
  const names = Object.keys(values);
  if (names.length > MAX_VALUES)
    throw new AppError('BAD_REQUEST', 'Too many customized fields', { field: 'customFields' });
  if (options.isApi) {
    const unknown = names.find((name) => !doc?.schema.properties[name] || !doc.ui.fields[name]);
    if (unknown !== undefined)
      throw new AppError('BAD_REQUEST', `${unknown.slice(0, 64)} is not a customized field`, {
        field: `customFields.${unknown.slice(0, 64)}`,
      });
  }
  if (!doc) return previous;
  const result = validateAnswers(doc, values);
  if (!result.ok) {
    const isEmpty = (name: string) => previous[name] === undefined || previous[name] === null || previous[name] === '';
    // On an edit, a required field that was already empty may stay empty (it became required later).
    const errors =
      before === null ? result.errors : result.errors.filter((e) => !(e.key === 'required' && isEmpty(e.field)));
    if (errors.length) throw new CustomFieldsError(errors, doc);
  }
  const current = new Set(customFieldNames(doc));
  const kept = Object.fromEntries(Object.entries(previous).filter(([name]) => !current.has(name)));
  return { ...kept, ...result.answers };
}

/** Reads the entity's form and checks the values (create: `before` null; edit: the stored value). */
export async function prepareCustomValues(
  tx: Tx,
  entity: CustomFieldEntity,
  input: unknown,
  before: unknown | null,
  options: { isApi?: boolean } = {},
): Promise<CustomValues> {
  return checkCustomValues(await customFieldsOf(tx, entity), input, before, options);
}

/** Field errors by field name, from a refusal (for FormFields.astro's `errors`, after translation). */
export function customFieldErrors(error: { details?: Record<string, unknown> } | null | undefined): FieldError[] {
  const errors = error?.details?.errors;
  return Array.isArray(errors) ? (errors as FieldError[]) : [];
}

export type ShownValue = { name: string; label: string; text: string };

/**
 * The values with their labels for a profile or detail page, in the page's language: a choice by
 * its option's label, a checkbox as Yes/No, money formatted in `currency`, a date as a date.
 * Fields without a value, and values of removed fields, are not shown.
 */
export function shownValues(
  doc: FormDocument | null,
  raw: unknown,
  ctx: { language: Language; currency: string; yes: string; no: string },
): ShownValue[] {
  if (!doc) return [];
  const values = storedValues(raw);
  const out: ShownValue[] = [];
  for (const name of customFieldNames(doc)) {
    const value = values[name];
    if (value === undefined || value === null || value === '') continue;
    const ui = doc.ui.fields[name]!;
    const label = textOf(ui.label, ctx.language);
    let text: string;
    if (CHOICE_WIDGETS.includes(ui.widget)) {
      const option = ui.options?.find((o) => o.value === value);
      text = option ? textOf(option.label, ctx.language) : String(value);
    } else if (typeof value === 'boolean') {
      text = value ? ctx.yes : ctx.no;
    } else if (ui.widget === 'money' && typeof value === 'string' && /^\d{1,13}(\.\d{1,2})?$/.test(value)) {
      text = formatDecimalMoney(value, ctx.currency, ctx.language);
    } else if (ui.widget === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      text = formatDate(value, ctx.language);
    } else if (typeof value === 'number') {
      text = formatNumber(value, ctx.language);
    } else {
      text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
    out.push({ name, label, text });
  }
  return out;
}

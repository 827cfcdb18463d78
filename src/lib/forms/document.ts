/**
 * The one form definition format of the product (issue 13): a JSON Schema (draft-07) for what the
 * answers must be, plus a small UI description for how they are asked: steps, order, widgets, EN/FR
 * texts, options with icons, help, and conditional visibility. The notify form, the staff application
 * form (`cbs.application_form`), public application forms and customized forms are all documents of
 * this shape; the server validates answers with Ajv (./validate.ts), the pages render from the UI part.
 *
 * Conditional visibility is `ui.fields[name].visibleWhen = { field, in }`. A conditional field that is
 * required is required only while visible, which the schema says in standard JSON Schema:
 * `allOf: [{ if: { properties: { F: { enum: in } }, required: [F] }, then: { required: [name] } }]`
 * (./required.ts keeps the two in step; ./check.ts refuses a document where they differ).
 */
import { z } from 'zod';

/** A text in the product's languages: English always, French optional (falls back to English). */
export const localizedSchema = z.object({
  en: z.string().trim().min(1).max(4000),
  fr: z.string().trim().max(4000).optional(),
});
export type Localized = z.infer<typeof localizedSchema>;

export const WIDGETS = [
  'text',
  'textarea',
  'email',
  'phone',
  'number',
  'money',
  'date',
  'select',
  'radio',
  'icon_radio',
  'checkbox',
  'consent',
  'file',
] as const;
export type Widget = (typeof WIDGETS)[number];

/** Widgets whose answer is one of `options` (the schema property's `enum`). */
export const CHOICE_WIDGETS: readonly Widget[] = ['select', 'radio', 'icon_radio'];
/** Icons an icon radio option may name (rendered from the product's own icon set). */
export const OPTION_ICONS = [
  'message',
  'phone-call',
  'in-person',
  'other',
  'uninterested',
  'neutral',
  'interested',
  'unknown',
  'user',
  'briefcase',
  'home',
  'car',
  'graduation-cap',
  'heart-pulse',
  'wallet',
  'building',
  'calendar',
  'check',
] as const;

const optionSchema = z.object({
  value: z.string().trim().min(1).max(120),
  label: localizedSchema,
  icon: z.enum(OPTION_ICONS).optional(),
});
export type FormOption = z.infer<typeof optionSchema>;

const visibleWhenSchema = z.object({ field: z.string().min(1), in: z.array(z.string().min(1)).min(1) });
export type VisibleWhen = z.infer<typeof visibleWhenSchema>;

/**
 * Where a public application form's answer goes when a submission is processed: the applicant's
 * customer record or the loan application's terms. A field without `bind` is kept in the
 * application's form data only.
 */
export const BINDINGS = [
  'customer.firstName',
  'customer.lastName',
  'customer.nationalId',
  'customer.phone',
  'customer.email',
  'customer.dateOfBirth',
  'application.productId',
  'application.principal',
  'application.numberOfRepayments',
] as const;
export type Binding = (typeof BINDINGS)[number];

/** Upload limits a form may set: at most 10 MB per file, types from this list. */
export const UPLOAD_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export const fieldUiSchema = z.object({
  widget: z.enum(WIDGETS),
  label: localizedSchema,
  help: localizedSchema.optional(),
  placeholder: localizedSchema.optional(),
  options: z.array(optionSchema).max(50).optional(),
  /** textarea only: visible rows (1–20). */
  rows: z.number().int().optional(),
  visibleWhen: visibleWhenSchema.optional(),
  /** consent only: the text the applicant agrees to. */
  consentText: localizedSchema.optional(),
  /** file only: accepted content types and the size limit in bytes. */
  accept: z.array(z.enum(UPLOAD_TYPES)).min(1).optional(),
  maxBytes: z.number().int().positive().max(MAX_UPLOAD_BYTES).optional(),
  bind: z.enum(BINDINGS).optional(),
});
export type FieldUi = z.infer<typeof fieldUiSchema>;

export const stepSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/),
  title: localizedSchema,
  fields: z.array(z.string()).max(60),
});
export type FormStep = z.infer<typeof stepSchema>;

export const uiSchema = z.object({
  steps: z.array(stepSchema).min(1).max(20),
  fields: z.record(z.string(), fieldUiSchema),
});
export type FormUi = z.infer<typeof uiSchema>;

/** The JSON Schema keywords a form property may use (./check.ts refuses the rest). */
export type PropertySchema = {
  type: 'string' | 'number' | 'integer' | 'boolean';
  title?: string;
  enum?: string[];
  const?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'email' | 'date';
  formatMinimum?: string;
  formatMaximum?: string;
  minimum?: number;
  maximum?: number;
  /** money only: decimal-string bounds, compared exactly (custom Ajv keywords, ./validate.ts). */
  minAmount?: string;
  maxAmount?: string;
};

export type Conditional = {
  if: { properties: Record<string, { enum: string[] }>; required: [string] };
  then: { required: string[] };
};

export type FormSchema = {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  allOf?: Conditional[];
  additionalProperties: false;
};

/** A form: the answers' JSON Schema and how to ask for them. */
export type FormDocument = { schema: FormSchema; ui: FormUi };

/** A field name is a key of the answers: letters, digits, '_' and '-', starting with a letter. */
export const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A money answer: a decimal string with at most two decimals. */
export const MONEY_PATTERN = '^\\d{1,13}(\\.\\d{1,2})?$';
/** A phone answer: digits with an optional leading + and separators. */
export const PHONE_PATTERN = '^\\+?[0-9 ().-]{6,24}$';

/** The text for a language ('fr-FR', 'fr' → French when given), English otherwise. */
export function textOf(text: Localized | undefined, language: string | null | undefined): string {
  if (!text) return '';
  return language?.toLowerCase().startsWith('fr') && text.fr ? text.fr : text.en;
}

/** The fields in order: steps first to last, each step's fields in order. */
export function orderedFieldNames(doc: FormDocument): string[] {
  return doc.ui.steps.flatMap((step) => step.fields);
}

/** The step a field is on (index), or -1. */
export function stepOfField(doc: FormDocument, name: string): number {
  return doc.ui.steps.findIndex((step) => step.fields.includes(name));
}

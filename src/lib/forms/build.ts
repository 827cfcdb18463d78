import {
  MONEY_PATTERN,
  PHONE_PATTERN,
  type FieldUi,
  type FormDocument,
  type Localized,
  type PropertySchema,
  type Widget,
} from './document.ts';
import { withRequired } from './fields.ts';

/**
 * Building blocks for forms: a new field of a widget with sensible limits, added to a step. Used by
 * the form builder island, the demo seed and the defaults, so every form starts valid (./check.ts).
 */
export function fieldDefaults(widget: Widget, label: Localized): { schema: PropertySchema; ui: FieldUi } {
  const ui: FieldUi = { widget, label };
  switch (widget) {
    case 'text':
      return { schema: { type: 'string', maxLength: 200 }, ui };
    case 'textarea':
      return { schema: { type: 'string', maxLength: 2000 }, ui: { ...ui, rows: 4 } };
    case 'email':
      return { schema: { type: 'string', format: 'email', maxLength: 254 }, ui };
    case 'phone':
      return { schema: { type: 'string', pattern: PHONE_PATTERN, maxLength: 24 }, ui };
    case 'number':
      return { schema: { type: 'number' }, ui };
    case 'money':
      return { schema: { type: 'string', pattern: MONEY_PATTERN, maxLength: 20 }, ui };
    case 'date':
      return { schema: { type: 'string', format: 'date' }, ui };
    case 'select':
    case 'radio':
    case 'icon_radio':
      return {
        schema: { type: 'string', enum: ['option_1'] },
        ui: { ...ui, options: [{ value: 'option_1', label: { en: 'Option 1', fr: 'Option 1' } }] },
      };
    case 'checkbox':
      return { schema: { type: 'boolean' }, ui };
    case 'consent':
      return { schema: { type: 'boolean' }, ui: { ...ui, consentText: label } };
    case 'file':
      return {
        schema: { type: 'string', maxLength: 64 },
        ui: { ...ui, accept: ['application/pdf', 'image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024 },
      };
  }
}

/** A form with one empty step. */
export function emptyForm(title: Localized = { en: 'Your application', fr: 'Votre demande' }): FormDocument {
  return {
    schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    ui: { steps: [{ id: 'step_1', title, fields: [] }], fields: {} },
  };
}

export type FieldSpec = {
  name: string;
  widget: Widget;
  label: Localized;
  required?: boolean;
  schema?: Partial<PropertySchema>;
  ui?: Partial<FieldUi>;
};

/** The document with a field added at the end of a step (by index). */
export function addField(doc: FormDocument, step: number, spec: FieldSpec): FormDocument {
  const base = fieldDefaults(spec.widget, spec.label);
  const ui = { ...base.ui, ...spec.ui };
  const schema = { ...base.schema, ...spec.schema } as PropertySchema;
  if (ui.options) schema.enum = ui.options.map((o) => o.value);
  const next: FormDocument = {
    schema: { ...doc.schema, properties: { ...doc.schema.properties, [spec.name]: schema } },
    ui: {
      steps: doc.ui.steps.map((s, i) => (i === step ? { ...s, fields: [...s.fields, spec.name] } : s)),
      fields: { ...doc.ui.fields, [spec.name]: ui },
    },
  };
  return withRequired(next, spec.name, spec.required ?? false);
}

/** A form from steps of field specs (the demo and default forms). */
export function formOf(steps: { id: string; title: Localized; fields: FieldSpec[] }[]): FormDocument {
  let doc: FormDocument = {
    schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    ui: { steps: steps.map((s) => ({ id: s.id, title: s.title, fields: [] })), fields: {} },
  };
  steps.forEach((s, index) => {
    for (const spec of s.fields) doc = addField(doc, index, spec);
  });
  return doc;
}

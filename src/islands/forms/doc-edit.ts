import { addField } from '#lib/forms/build.ts';
import {
  CHOICE_WIDGETS,
  FIELD_NAME,
  orderedFieldNames,
  type FieldUi,
  type FormDocument,
  type Localized,
  type PropertySchema,
  type Widget,
} from '#lib/forms/document.ts';
import { isRequired, withRequired } from '#lib/forms/fields.ts';

/**
 * The form builder's edits of a form document (src/lib/forms): each returns a new document, built with
 * the core's functions (addField, withRequired) so that `required` stays in step with visibility
 * whatever is renamed, moved, made conditional or deleted. Pure, so the unit tests cover them.
 */

/** The fields that must be answered (when they show). */
export function requiredNames(doc: FormDocument): Set<string> {
  return new Set(Object.keys(doc.schema.properties).filter((name) => isRequired(doc, name)));
}

/** The document with `required` and the conditionals written again from scratch for these fields. */
export function rebuildRequired(doc: FormDocument, required: ReadonlySet<string>): FormDocument {
  let next: FormDocument = { ...doc, schema: { ...doc.schema, required: [] } };
  delete next.schema.allOf;
  for (const name of orderedFieldNames(next)) if (required.has(name)) next = withRequired(next, name, true);
  return next;
}

/** A field name not used yet: `<base>_1`, `<base>_2`… */
export function freeName(doc: FormDocument, base: string): string {
  const stem = base.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[^A-Za-z]+/, '') || 'field';
  for (let i = 1; ; i += 1) {
    const name = `${stem}_${i}`;
    if (!doc.schema.properties[name]) return name;
  }
}

/** A field of the widget added at the end of the step; its name is returned too. */
export function addWidget(
  doc: FormDocument,
  step: number,
  widget: Widget,
  label: Localized,
): { doc: FormDocument; name: string } {
  const name = freeName(doc, widget);
  return { doc: addField(doc, step, { name, widget, label }), name };
}

function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  const out = { ...record };
  delete out[key];
  return out;
}

/** The document without the field; fields shown only after it lose that rule (they always show). */
export function removeField(doc: FormDocument, name: string): FormDocument {
  const required = requiredNames(doc);
  required.delete(name);
  const fields: Record<string, FieldUi> = {};
  for (const [key, ui] of Object.entries(doc.ui.fields)) {
    if (key === name) continue;
    if (ui.visibleWhen?.field === name) {
      const rest = { ...ui };
      delete rest.visibleWhen;
      fields[key] = rest;
    } else fields[key] = ui;
  }
  return rebuildRequired(
    {
      schema: { ...doc.schema, properties: withoutKey(doc.schema.properties, name) },
      ui: { steps: doc.ui.steps.map((s) => ({ ...s, fields: s.fields.filter((f) => f !== name) })), fields },
    },
    required,
  );
}

/** Why a field cannot take this name ('format', 'taken'), or null when it can. */
export function nameProblem(doc: FormDocument, from: string, to: string): 'format' | 'taken' | null {
  if (!FIELD_NAME.test(to)) return 'format';
  if (to !== from && doc.schema.properties[to]) return 'taken';
  return null;
}

/** The document with the field renamed everywhere (schema, UI, steps, rules of other fields). */
export function renameField(doc: FormDocument, from: string, to: string): FormDocument {
  if (from === to || nameProblem(doc, from, to)) return doc;
  const required = requiredNames(doc);
  const swap = (n: string) => (n === from ? to : n);
  const properties: Record<string, PropertySchema> = {};
  for (const [key, value] of Object.entries(doc.schema.properties)) properties[swap(key)] = value;
  const fields: Record<string, FieldUi> = {};
  for (const [key, ui] of Object.entries(doc.ui.fields))
    fields[swap(key)] = ui.visibleWhen?.field === from ? { ...ui, visibleWhen: { ...ui.visibleWhen, field: to } } : ui;
  return rebuildRequired(
    {
      schema: { ...doc.schema, properties },
      ui: { steps: doc.ui.steps.map((s) => ({ ...s, fields: s.fields.map(swap) })), fields },
    },
    new Set([...required].map(swap)),
  );
}

/**
 * The field one place up (-1) or down (+1): within its step, or to the end of the previous step /
 * the start of the next one at a step's edge. Unchanged at the form's edges.
 */
export function moveField(doc: FormDocument, name: string, delta: -1 | 1): FormDocument {
  const s = doc.ui.steps.findIndex((step) => step.fields.includes(name));
  if (s < 0) return doc;
  const steps = doc.ui.steps.map((step) => ({ ...step, fields: [...step.fields] }));
  const list = steps[s].fields;
  const i = list.indexOf(name);
  const j = i + delta;
  if (j >= 0 && j < list.length) {
    [list[i], list[j]] = [list[j], list[i]];
  } else {
    const target = s + delta;
    if (target < 0 || target >= steps.length) return doc;
    list.splice(i, 1);
    if (delta < 0) steps[target].fields.push(name);
    else steps[target].fields.unshift(name);
  }
  return { ...doc, ui: { ...doc.ui, steps } };
}

/** The document with a field's UI changed; options keep the schema's enum in step, visibility keeps `required`. */
export function setFieldUi(doc: FormDocument, name: string, patch: Partial<FieldUi>): FormDocument {
  const wasRequired = isRequired(doc, name);
  const ui: FieldUi = { ...doc.ui.fields[name], ...patch };
  for (const key of Object.keys(patch) as (keyof FieldUi)[]) if (patch[key] === undefined) delete ui[key];
  let property = doc.schema.properties[name];
  if (patch.options && CHOICE_WIDGETS.includes(ui.widget))
    property = { ...property, enum: patch.options.map((o) => o.value) };
  const next: FormDocument = {
    schema: { ...doc.schema, properties: { ...doc.schema.properties, [name]: property } },
    ui: { ...doc.ui, fields: { ...doc.ui.fields, [name]: ui } },
  };
  return 'visibleWhen' in patch ? withRequired(next, name, wasRequired) : next;
}

type RuleKey =
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'minimum'
  | 'maximum'
  | 'minAmount'
  | 'maxAmount'
  | 'formatMinimum'
  | 'formatMaximum';

/** The document with one validation keyword of a field set (or removed when undefined). */
export function setRule(
  doc: FormDocument,
  name: string,
  key: RuleKey,
  value: string | number | undefined,
): FormDocument {
  const property = { ...doc.schema.properties[name] } as Record<string, unknown>;
  if (value === undefined) delete property[key];
  else property[key] = value;
  return {
    ...doc,
    schema: { ...doc.schema, properties: { ...doc.schema.properties, [name]: property as PropertySchema } },
  };
}

/** The validation keywords offered for a widget. */
export function rulesOf(widget: Widget): RuleKey[] {
  switch (widget) {
    case 'text':
      return ['minLength', 'maxLength', 'pattern'];
    case 'textarea':
    case 'email':
    case 'phone':
      return ['minLength', 'maxLength'];
    case 'number':
      return ['minimum', 'maximum'];
    case 'money':
      return ['minAmount', 'maxAmount'];
    case 'date':
      return ['formatMinimum', 'formatMaximum'];
    default:
      return [];
  }
}

/** A text of the UI (label, help, placeholder, consent text) with one language changed; optional texts left empty are removed. */
export function withText(
  current: Localized | undefined,
  language: 'en' | 'fr',
  value: string,
  optional: boolean,
): Localized | undefined {
  const next: Localized = { en: current?.en ?? '', ...(current?.fr ? { fr: current.fr } : {}) };
  if (language === 'fr') {
    if (value) next.fr = value;
    else delete next.fr;
  } else next.en = value;
  if (optional && !next.en && !next.fr) return undefined;
  return next;
}

function freeStepId(doc: FormDocument): string {
  for (let i = doc.ui.steps.length + 1; ; i += 1) {
    const id = `step_${i}`;
    if (!doc.ui.steps.some((s) => s.id === id)) return id;
  }
}

export function addStep(doc: FormDocument, title: Localized): FormDocument {
  return { ...doc, ui: { ...doc.ui, steps: [...doc.ui.steps, { id: freeStepId(doc), title, fields: [] }] } };
}

export function setStepTitle(doc: FormDocument, index: number, title: Localized): FormDocument {
  return { ...doc, ui: { ...doc.ui, steps: doc.ui.steps.map((s, i) => (i === index ? { ...s, title } : s)) } };
}

export function moveStep(doc: FormDocument, index: number, delta: -1 | 1): FormDocument {
  const j = index + delta;
  if (j < 0 || j >= doc.ui.steps.length) return doc;
  const steps = [...doc.ui.steps];
  [steps[index], steps[j]] = [steps[j], steps[index]];
  return { ...doc, ui: { ...doc.ui, steps } };
}

/** The document without the step and its fields (the last step stays). */
export function removeStep(doc: FormDocument, index: number): FormDocument {
  if (doc.ui.steps.length <= 1) return doc;
  let next = doc;
  for (const name of doc.ui.steps[index].fields) next = removeField(next, name);
  return { ...next, ui: { ...next.ui, steps: next.ui.steps.filter((_, i) => i !== index) } };
}

/** Earlier choice fields a field may depend on (its visibility rule's candidates). */
export function controllersFor(doc: FormDocument, name: string): string[] {
  const order = orderedFieldNames(doc);
  const at = order.indexOf(name);
  return order.slice(0, Math.max(at, 0)).filter((n) => CHOICE_WIDGETS.includes(doc.ui.fields[n]?.widget));
}

import type { Conditional, FieldUi, FormDocument, PropertySchema } from './document.ts';
import { orderedFieldNames } from './document.ts';

/** Answers as the pages hold them: the posted strings, or typed values after coercion. */
export type Answers = Record<string, unknown>;

/** One field with both halves of its definition, for renderers and editors. */
export type ResolvedField = { name: string; schema: PropertySchema; ui: FieldUi; required: boolean; step: number };

/**
 * Whether a field shows for the answers so far. A field whose controlling field is itself hidden is
 * hidden (visibility is decided in form order, on the answers that remain).
 */
export function visibleNames(doc: FormDocument, answers: Answers): Set<string> {
  const visible = new Set<string>();
  for (const name of orderedFieldNames(doc)) {
    const rule = doc.ui.fields[name]?.visibleWhen;
    if (!rule) {
      visible.add(name);
      continue;
    }
    if (!visible.has(rule.field)) continue;
    const value = answers[rule.field];
    if (typeof value === 'string' && rule.in.includes(value)) visible.add(name);
  }
  return visible;
}

export function isVisible(doc: FormDocument, name: string, answers: Answers): boolean {
  return visibleNames(doc, answers).has(name);
}

/**
 * The answers without hidden or unknown fields and without empty values (an unticked checkbox is no
 * answer, so a required checkbox or consent must be ticked): what is validated and kept.
 */
export function keptAnswers(doc: FormDocument, answers: Answers): Answers {
  const visible = visibleNames(doc, answers);
  const out: Answers = {};
  for (const name of orderedFieldNames(doc)) {
    if (!visible.has(name)) continue;
    const value = answers[name];
    if (value === undefined || value === null || value === '' || value === false) continue;
    out[name] = value;
  }
  return out;
}

function conditionalFor(doc: FormDocument, name: string): Conditional | undefined {
  return (doc.schema.allOf ?? []).find((c) => c.then.required.includes(name));
}

/** Whether the field must be answered when it shows. */
export function isRequired(doc: FormDocument, name: string): boolean {
  return (doc.schema.required ?? []).includes(name) || conditionalFor(doc, name) !== undefined;
}

/**
 * The document with the field required or not, written the way the schema says it: in `required`
 * for an always-visible field, as an if/then of its visibility rule for a conditional one. Call it
 * again after changing a field's `visibleWhen` so the two stay in step.
 */
export function withRequired(doc: FormDocument, name: string, required: boolean): FormDocument {
  const top = (doc.schema.required ?? []).filter((n) => n !== name);
  const allOf = (doc.schema.allOf ?? [])
    .map((c) => ({ ...c, then: { required: c.then.required.filter((n) => n !== name) } }))
    .filter((c) => c.then.required.length > 0);
  const rule = doc.ui.fields[name]?.visibleWhen;
  if (required && !rule) top.push(name);
  if (required && rule) {
    allOf.push({
      if: { properties: { [rule.field]: { enum: [...rule.in] } }, required: [rule.field] },
      then: { required: [name] },
    });
  }
  const schema = { ...doc.schema, required: top } as FormDocument['schema'];
  if (allOf.length) schema.allOf = allOf;
  else delete schema.allOf;
  return { ...doc, schema };
}

/** Every field, resolved, in form order. */
export function resolvedFields(doc: FormDocument): ResolvedField[] {
  return doc.ui.steps.flatMap((step, index) =>
    step.fields
      .filter((name) => doc.schema.properties[name] && doc.ui.fields[name])
      .map((name) => ({
        name,
        schema: doc.schema.properties[name],
        ui: doc.ui.fields[name],
        required: isRequired(doc, name),
        step: index,
      })),
  );
}

/**
 * The posted strings of a plain HTML form typed as the schema wants them: a checkbox or consent is
 * true when posted ("on"/"true") and false otherwise; a number is a number when it reads as one (else
 * left as text, so validation names the field); empty text is no answer. Only the names given are
 * read (a step's fields), other keys are ignored.
 */
export function coercePosted(doc: FormDocument, posted: Record<string, string>, names: readonly string[]): Answers {
  const out: Answers = {};
  for (const name of names) {
    const schema = doc.schema.properties[name];
    const ui = doc.ui.fields[name];
    if (!schema || !ui) continue;
    const raw = posted[name];
    if (schema.type === 'boolean') {
      out[name] = raw === 'on' || raw === 'true' || raw === '1';
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '') continue;
    if (schema.type === 'number' || schema.type === 'integer') {
      const normal = text.replace(/\s/g, '').replace(',', '.');
      out[name] = /^-?\d+(\.\d+)?$/.test(normal) ? Number(normal) : text;
      continue;
    }
    if (ui.widget === 'money') {
      out[name] = text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
      continue;
    }
    out[name] = text;
  }
  return out;
}

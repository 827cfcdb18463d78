import { AppError } from '../errors/app-error.ts';
import {
  CHOICE_WIDGETS,
  FIELD_NAME,
  MONEY_PATTERN,
  uiSchema,
  type FormDocument,
  type PropertySchema,
  type Widget,
} from './document.ts';
import { formsAjv, patternCompiles, validatorFor } from './validate.ts';

/**
 * The rules a form document must follow beyond being JSON: the UI part's shape, a schema within the
 * subset the renderers understand, and the two halves in step. Pure apart from Ajv (which compiles the
 * schema to prove it), so the builder island shows the very refusals the server makes. Each problem
 * names its path ("ui.fields.Channel.options[0].value") and a key of the `forms:problems` namespace.
 */
export type FormProblem = { path: string; key: string; params?: Record<string, string | number> };

export const LIMITS = { fields: 200, bytes: 256 * 1024, patternLength: 200, stringLength: 4000 } as const;

/** What schema type (and keywords) each widget answers with. */
const WIDGET_TYPES: Record<Widget, PropertySchema['type']> = {
  text: 'string',
  textarea: 'string',
  email: 'string',
  phone: 'string',
  number: 'number',
  money: 'string',
  date: 'string',
  select: 'string',
  radio: 'string',
  icon_radio: 'string',
  checkbox: 'boolean',
  consent: 'boolean',
  file: 'string',
};

const KEYWORDS: Record<PropertySchema['type'], readonly string[]> = {
  string: [
    'type',
    'title',
    'enum',
    'minLength',
    'maxLength',
    'pattern',
    'format',
    'formatMinimum',
    'formatMaximum',
    'minAmount',
    'maxAmount',
  ],
  number: ['type', 'title', 'minimum', 'maximum'],
  integer: ['type', 'title', 'minimum', 'maximum'],
  boolean: ['type', 'title', 'const'],
};

function propertyProblems(name: string, property: PropertySchema, widget: Widget | undefined): FormProblem[] {
  const at = `schema.properties.${name}`;
  const problems: FormProblem[] = [];
  if (!property || typeof property !== 'object') return [{ path: at, key: 'invalid' }];
  const allowed = KEYWORDS[property.type];
  if (!allowed) return [{ path: `${at}.type`, key: 'type' }];
  for (const key of Object.keys(property))
    if (!allowed.includes(key)) problems.push({ path: `${at}.${key}`, key: 'keyword', params: { keyword: key } });
  if (widget) {
    const want = WIDGET_TYPES[widget];
    const fits = property.type === want || (widget === 'number' && property.type === 'integer');
    if (!fits) problems.push({ path: `${at}.type`, key: 'widgetType', params: { widget, type: want } });
  }
  if (property.type === 'string' && widget !== 'date' && widget !== 'file' && !CHOICE_WIDGETS.includes(widget!)) {
    if (property.maxLength === undefined || property.maxLength > LIMITS.stringLength)
      problems.push({ path: `${at}.maxLength`, key: 'maxLength', params: { limit: LIMITS.stringLength } });
  }
  if (property.pattern !== undefined) {
    // Patterns run on RE2, in linear time (./validate.ts): one that does not compile there is refused.
    if (
      typeof property.pattern !== 'string' ||
      property.pattern.length > LIMITS.patternLength ||
      !patternCompiles(property.pattern)
    )
      problems.push({ path: `${at}.pattern`, key: 'pattern' });
  }
  if (widget === 'money' && property.pattern !== MONEY_PATTERN)
    problems.push({ path: `${at}.pattern`, key: 'moneyPattern' });
  if (widget === 'date' && property.format !== 'date') problems.push({ path: `${at}.format`, key: 'dateFormat' });
  if (widget === 'email' && property.format !== 'email') problems.push({ path: `${at}.format`, key: 'emailFormat' });
  if (
    property.minimum !== undefined &&
    property.maximum !== undefined &&
    Number(property.minimum) > Number(property.maximum)
  )
    problems.push({ path: `${at}.minimum`, key: 'range' });
  return problems;
}

/**
 * `compile: false` skips the two checks that compile with Ajv (the schema against the meta-schema,
 * and the schema itself): Ajv generates code, which a page's Content-Security-Policy refuses
 * ('unsafe-eval'), so an island checks with it off and the server makes the full check.
 */
export function formProblems(raw: unknown, options: { compile?: boolean } = {}): FormProblem[] {
  const compile = options.compile !== false;
  const problems: FormProblem[] = [];
  if (!raw || typeof raw !== 'object') return [{ path: '', key: 'invalid' }];
  if (JSON.stringify(raw).length > LIMITS.bytes) return [{ path: '', key: 'tooLarge' }];
  const doc = raw as FormDocument;
  const ui = uiSchema.safeParse(doc.ui);
  if (!ui.success) {
    for (const issue of ui.error.issues.slice(0, 20))
      problems.push({ path: ['ui', ...issue.path].join('.'), key: 'shape', params: { message: issue.message } });
    return problems;
  }
  const schema = doc.schema;
  if (
    !schema ||
    schema.type !== 'object' ||
    schema.additionalProperties !== false ||
    !schema.properties ||
    typeof schema.properties !== 'object'
  )
    return [{ path: 'schema', key: 'schemaShape' }];
  for (const key of Object.keys(schema))
    if (!['type', 'properties', 'required', 'allOf', 'additionalProperties', 'title'].includes(key))
      problems.push({ path: `schema.${key}`, key: 'keyword', params: { keyword: key } });
  if (compile && !formsAjv().validateSchema(schema)) problems.push({ path: 'schema', key: 'schemaShape' });

  const names = Object.keys(schema.properties);
  if (names.length === 0) problems.push({ path: 'schema.properties', key: 'noFields' });
  if (names.length > LIMITS.fields) problems.push({ path: 'schema.properties', key: 'tooManyFields' });
  const placed = new Map<string, number>();
  const order: string[] = [];
  const stepIds = new Set<string>();
  ui.data.steps.forEach((step, s) => {
    if (stepIds.has(step.id)) problems.push({ path: `ui.steps[${s}].id`, key: 'stepTaken' });
    stepIds.add(step.id);
    if (step.fields.length === 0) problems.push({ path: `ui.steps[${s}].fields`, key: 'emptyStep' });
    for (const name of step.fields) {
      if (placed.has(name)) problems.push({ path: `ui.steps[${s}].fields`, key: 'placedTwice', params: { name } });
      placed.set(name, s);
      order.push(name);
    }
  });
  for (const name of names) {
    if (!FIELD_NAME.test(name)) problems.push({ path: `schema.properties.${name}`, key: 'nameFormat' });
    if (!ui.data.fields[name]) problems.push({ path: `ui.fields.${name}`, key: 'uiMissing', params: { name } });
    if (!placed.has(name)) problems.push({ path: `ui.steps`, key: 'notPlaced', params: { name } });
  }
  for (const name of Object.keys(ui.data.fields))
    if (!schema.properties[name]) problems.push({ path: `ui.fields.${name}`, key: 'schemaMissing', params: { name } });
  for (const name of placed.keys())
    if (!schema.properties[name]) problems.push({ path: 'ui.steps', key: 'schemaMissing', params: { name } });
  if (problems.length) return problems;

  const binds = new Set<string>();
  for (const name of order) {
    const field = ui.data.fields[name];
    const property = schema.properties[name];
    const at = `ui.fields.${name}`;
    problems.push(...propertyProblems(name, property, field.widget));
    const isChoice = CHOICE_WIDGETS.includes(field.widget);
    const values = (field.options ?? []).map((o) => o.value);
    if (isChoice && values.length === 0) problems.push({ path: `${at}.options`, key: 'optionsRequired' });
    if (!isChoice && field.options?.length) problems.push({ path: `${at}.options`, key: 'optionsNotAllowed' });
    if (isChoice && JSON.stringify(property.enum ?? []) !== JSON.stringify(values))
      problems.push({ path: `schema.properties.${name}.enum`, key: 'enumOptions' });
    if (new Set(values).size !== values.length) problems.push({ path: `${at}.options`, key: 'optionTaken' });
    if (field.rows !== undefined && (field.widget !== 'textarea' || field.rows < 1 || field.rows > 20))
      problems.push({ path: `${at}.rows`, key: 'rows' });
    if (field.widget === 'consent' && !field.consentText)
      problems.push({ path: `${at}.consentText`, key: 'consentText' });
    if (field.widget === 'file' && (!field.accept || !field.maxBytes))
      problems.push({ path: `${at}.accept`, key: 'fileLimits' });
    if (field.widget !== 'file' && (field.accept || field.maxBytes))
      problems.push({ path: `${at}.accept`, key: 'fileOnly' });
    if (field.bind) {
      if (binds.has(field.bind)) problems.push({ path: `${at}.bind`, key: 'bindTaken', params: { bind: field.bind } });
      binds.add(field.bind);
    }
    const rule = field.visibleWhen;
    if (rule) {
      const earlier = order.indexOf(rule.field);
      const controller = ui.data.fields[rule.field];
      if (earlier < 0 || earlier >= order.indexOf(name) || !controller)
        problems.push({ path: `${at}.visibleWhen.field`, key: 'visibleWhenEarlier' });
      else if (!CHOICE_WIDGETS.includes(controller.widget))
        problems.push({ path: `${at}.visibleWhen.field`, key: 'visibleWhenOptions' });
      else {
        const known = new Set((controller.options ?? []).map((o) => o.value));
        for (const value of rule.in)
          if (!known.has(value))
            problems.push({ path: `${at}.visibleWhen.in`, key: 'visibleWhenValue', params: { value } });
      }
    }
  }
  // Required: always-visible fields in `required`, conditional ones as the if/then of their rule.
  for (const name of schema.required ?? []) {
    if (!schema.properties[name]) problems.push({ path: 'schema.required', key: 'schemaMissing', params: { name } });
    else if (ui.data.fields[name]?.visibleWhen)
      problems.push({ path: 'schema.required', key: 'requiredConditional', params: { name } });
  }
  for (const [index, conditional] of (schema.allOf ?? []).entries()) {
    const at = `schema.allOf[${index}]`;
    const target = conditional?.then?.required ?? [];
    const [controller] = conditional?.if?.required ?? [];
    const values = conditional?.if?.properties?.[controller]?.enum;
    for (const name of target) {
      const rule = ui.data.fields[name]?.visibleWhen;
      if (
        !rule ||
        rule.field !== controller ||
        JSON.stringify([...rule.in].sort()) !== JSON.stringify([...(values ?? [])].sort())
      )
        problems.push({ path: at, key: 'conditionalRule', params: { name } });
    }
    if (!target.length) problems.push({ path: at, key: 'conditionalRule', params: { name: '' } });
  }
  if (problems.length || !compile) return problems;
  try {
    validatorFor(doc);
  } catch (error) {
    problems.push({ path: 'schema', key: 'schemaShape', params: { message: (error as Error).message.slice(0, 200) } });
  }
  return problems;
}

/** A valid form document, or 422 listing the problems (details.problems). */
export function parseFormDocument(
  raw: unknown,
  field = 'document',
  options: { allowEmpty?: boolean } = {},
): FormDocument {
  // An entity's customized fields may be emptied again (its one step then has no field).
  const problems = formProblems(raw).filter(
    (p) => !(options.allowEmpty && (p.key === 'noFields' || p.key === 'emptyStep')),
  );
  if (problems.length) {
    const first = problems[0];
    throw new AppError('UNPROCESSABLE', `The form is not valid: ${first.path} (${first.key})`, {
      field,
      details: { problems },
    });
  }
  return raw as FormDocument;
}

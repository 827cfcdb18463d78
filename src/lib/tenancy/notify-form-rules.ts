import type { FormDefinition, FormFieldType } from './config.ts';

/**
 * The rules a tenant form definition (the notify-customer form, `notify_customer_modal_config.form`)
 * must follow beyond its shape: what the offer's notify dialog needs to render and check it. Pure and
 * free of zod, so the settings editor island shows the very refusals the server would, while typing.
 * Each problem names its path inside the form ("fields[1].options[0].value") and a message key of the
 * `settings:errors` namespace.
 */
export type FormProblem = { path: string; key: string; params?: Record<string, string | number> };

/** Field types whose value is one of a list of options. */
export const TYPES_WITH_OPTIONS: readonly FormFieldType[] = ['icon_radio', 'radio', 'select'];

/** A field name is a key of the submitted values: letters, digits, '_' and '-', starting with a letter. */
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function formProblems(form: FormDefinition): FormProblem[] {
  const problems: FormProblem[] = [];
  if (form.fields.length === 0) problems.push({ path: 'fields', key: 'noFields' });
  const seen = new Map<string, number>();
  form.fields.forEach((field, index) => {
    const at = `fields[${index}]`;
    const name = field.name.trim();
    if (!name) problems.push({ path: `${at}.name`, key: 'required' });
    else if (!NAME.test(name)) problems.push({ path: `${at}.name`, key: 'nameFormat' });
    else if (seen.has(name)) problems.push({ path: `${at}.name`, key: 'nameTaken', params: { name } });
    if (!field.label.trim()) problems.push({ path: `${at}.label`, key: 'required' });
    const hasOptions = TYPES_WITH_OPTIONS.includes(field.type);
    const options = field.options ?? [];
    if (hasOptions && options.length === 0) problems.push({ path: `${at}.options`, key: 'optionsRequired' });
    if (!hasOptions && options.length > 0) problems.push({ path: `${at}.options`, key: 'optionsNotAllowed' });
    const values = new Set<string>();
    options.forEach((option, o) => {
      if (!option.value.trim()) problems.push({ path: `${at}.options[${o}].value`, key: 'required' });
      else if (values.has(option.value))
        problems.push({ path: `${at}.options[${o}].value`, key: 'optionTaken', params: { value: option.value } });
      if (!option.label.trim()) problems.push({ path: `${at}.options[${o}].label`, key: 'required' });
      values.add(option.value);
    });
    if (field.rows !== undefined && (field.type !== 'textarea' || field.rows < 1 || field.rows > 20))
      problems.push({ path: `${at}.rows`, key: 'rows' });
    const rule = field.visibleWhen;
    if (rule) {
      const earlier = seen.has(rule.field) ? form.fields[seen.get(rule.field)!] : undefined;
      if (!earlier) problems.push({ path: `${at}.visibleWhen.field`, key: 'visibleWhenEarlier' });
      else if (!TYPES_WITH_OPTIONS.includes(earlier.type))
        problems.push({ path: `${at}.visibleWhen.field`, key: 'visibleWhenOptions' });
      else {
        const known = new Set((earlier.options ?? []).map((o) => o.value));
        if (rule.in.length === 0) problems.push({ path: `${at}.visibleWhen.in`, key: 'visibleWhenEmpty' });
        for (const value of rule.in)
          if (!known.has(value))
            problems.push({ path: `${at}.visibleWhen.in`, key: 'visibleWhenValue', params: { value } });
      }
    }
    if (name && !seen.has(name)) seen.set(name, index);
  });
  return problems;
}

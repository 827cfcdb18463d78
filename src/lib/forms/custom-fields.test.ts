import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { formOf } from './build.ts';
import { checkCustomValues, formValues, postedCustomFields, shownValues } from './custom-fields.ts';

const doc = formOf([
  {
    id: 'extra',
    title: { en: 'Extra' },
    fields: [
      { name: 'employer', widget: 'text', label: { en: 'Employer', fr: 'Employeur' }, required: true },
      {
        name: 'housing',
        widget: 'select',
        label: { en: 'Housing', fr: 'Logement' },
        ui: {
          options: [
            { value: 'owner', label: { en: 'Owner', fr: 'Propriétaire' } },
            { value: 'tenant', label: { en: 'Tenant', fr: 'Locataire' } },
          ],
        },
      },
      { name: 'income', widget: 'money', label: { en: 'Income' } },
      { name: 'pets', widget: 'checkbox', label: { en: 'Has pets' } },
      { name: 'children', widget: 'number', label: { en: 'Children' }, schema: { type: 'integer', minimum: 0 } },
    ],
  },
]);

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as AppError & { details?: { errors: { field: string; key: string }[] } };
  }
  throw new Error('not refused');
};

describe('customized fields', () => {
  it('reads posted cf. fields typed by the schema, ignoring other names', () => {
    const form = new FormData();
    form.set('cf.employer', ' Acme ');
    form.set('cf.children', '2');
    form.set('cf.pets', 'on');
    form.set('cf.income', '1 500,50');
    form.set('employer', 'not mine');
    expect(postedCustomFields(doc, form)).toEqual({ employer: 'Acme', children: 2, pets: true, income: '1500.50' });
  });

  it('requires required fields on create and names the field', () => {
    const error = refusal(() => checkCustomValues(doc, {}, null));
    expect(error.status).toBe(400);
    expect(error.field).toBe('customFields.employer');
    expect(error.details?.errors.map((e) => `${e.field}:${e.key}`)).toEqual(['employer:required']);
  });

  it('reports every wrong field', () => {
    const error = refusal(() => checkCustomValues(doc, { employer: 'A', housing: 'castle', children: -1 }, null));
    expect(error.details?.errors.map((e) => `${e.field}:${e.key}`)).toEqual(['housing:choice', 'children:minimum']);
  });

  it('an API caller may not name an unknown field; a form post ignores it', () => {
    expect(refusal(() => checkCustomValues(doc, { employer: 'A', salary: 1 }, null, { isApi: true })).field).toBe(
      'customFields.salary',
    );
    expect(checkCustomValues(doc, { employer: 'A', salary: 1 }, null)).toEqual({ employer: 'A' });
  });

  it('keeps values of removed fields, and lets an old row stay empty in a field made required later', () => {
    const stored = { old_field: 'kept', housing: 'owner' };
    expect(checkCustomValues(doc, { housing: 'tenant' }, stored)).toEqual({ old_field: 'kept', housing: 'tenant' });
    // Clearing a required value that was there is refused.
    expect(refusal(() => checkCustomValues(doc, {}, { employer: 'Acme' })).field).toBe('customFields.employer');
    expect(formValues(doc, stored)).toEqual({ housing: 'owner' });
  });

  it('shows values with labels in the language: options by label, booleans as Yes/No, money formatted', () => {
    const rows = shownValues(
      doc,
      { employer: '<script>x</script>', housing: 'owner', pets: true, income: '1500.5', gone: 'x' },
      { language: 'fr', currency: 'EUR', yes: 'Oui', no: 'Non' },
    );
    expect(rows.map((r) => [r.label, r.text.replace(/\s/g, ' ')])).toEqual([
      ['Employeur', '<script>x</script>'],
      ['Logement', 'Propriétaire'],
      ['Income', '1 500,50 €'],
      ['Has pets', 'Oui'],
    ]);
  });

  it('without a form, stored values are kept and nothing is required', () => {
    expect(checkCustomValues(null, undefined, { a: 1 })).toEqual({ a: 1 });
    expect(refusal(() => checkCustomValues(null, { a: 1 }, null, { isApi: true })).field).toBe('customFields.a');
  });
});

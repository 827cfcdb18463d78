import { describe, expect, it } from 'vitest';
import { addField, emptyForm, formOf } from './build.ts';
import { formProblems, parseFormDocument } from './check.ts';
import type { FormDocument } from './document.ts';
import { coercePosted, isRequired, visibleNames, withRequired } from './fields.ts';
import { DEFAULT_NOTIFY_FORM, upgradeLegacyForm } from './notify.ts';
import { amountCents, validateAnswers } from './validate.ts';

const keys = (doc: FormDocument, answers: Record<string, unknown>) => {
  const result = validateAnswers(doc, answers);
  return result.ok ? [] : result.errors.map((e) => `${e.field}:${e.key}`);
};

describe('the notify form on the one format', () => {
  it('is a valid document', () => {
    expect(formProblems(DEFAULT_NOTIFY_FORM)).toEqual([]);
  });
  it('requires Channel; Client_Feedback only when Channel is PhoneCall, InPerson or Other', () => {
    expect(keys(DEFAULT_NOTIFY_FORM, {})).toEqual(['Channel:required']);
    expect(keys(DEFAULT_NOTIFY_FORM, { Channel: 'Message' })).toEqual([]);
    for (const channel of ['PhoneCall', 'InPerson', 'Other']) {
      expect(keys(DEFAULT_NOTIFY_FORM, { Channel: channel })).toEqual(['Client_Feedback:required']);
      expect(keys(DEFAULT_NOTIFY_FORM, { Channel: channel, Client_Feedback: 'Neutral' })).toEqual([]);
    }
    expect(keys(DEFAULT_NOTIFY_FORM, { Channel: 'Pigeon' })).toEqual(['Channel:choice']);
  });
  it('shows Client_Feedback and Comment only for PhoneCall, InPerson, Other, and drops their answers otherwise', () => {
    expect([...visibleNames(DEFAULT_NOTIFY_FORM, { Channel: 'Message' })]).toEqual(['Channel']);
    expect([...visibleNames(DEFAULT_NOTIFY_FORM, { Channel: 'InPerson' })]).toEqual([
      'Channel',
      'Client_Feedback',
      'Comment',
    ]);
    const result = validateAnswers(DEFAULT_NOTIFY_FORM, {
      Channel: 'Message',
      Client_Feedback: 'Neutral',
      Comment: 'hidden',
    });
    expect(result).toEqual({ ok: true, answers: { Channel: 'Message' } });
  });
  it('keeps Comment optional', () => {
    expect(isRequired(DEFAULT_NOTIFY_FORM, 'Comment')).toBe(false);
    expect(keys(DEFAULT_NOTIFY_FORM, { Channel: 'Other', Client_Feedback: 'Unknown' })).toEqual([]);
  });
  it('upgrades a stored form of the old format with the same rules', () => {
    const legacy = upgradeLegacyForm({
      fields: [
        {
          name: 'Channel',
          type: 'icon_radio',
          label: 'How?',
          required: true,
          options: [
            { value: 'Message', label: 'Message', icon: 'message' },
            { value: 'PhoneCall', label: 'Phone call', icon: 'phone-call' },
          ],
        },
        {
          name: 'Note',
          type: 'textarea',
          label: 'Note',
          required: true,
          rows: 3,
          visibleWhen: { field: 'Channel', in: ['PhoneCall'] },
        },
      ],
    });
    expect(formProblems(legacy)).toEqual([]);
    expect(keys(legacy, { Channel: 'Message' })).toEqual([]);
    expect(keys(legacy, { Channel: 'PhoneCall' })).toEqual(['Note:required']);
  });
});

describe('answers', () => {
  const doc = formOf([
    {
      id: 'about',
      title: { en: 'About you' },
      fields: [
        { name: 'name', widget: 'text', label: { en: 'Name' }, required: true, schema: { minLength: 2 } },
        { name: 'email', widget: 'email', label: { en: 'E-mail' } },
        { name: 'born', widget: 'date', label: { en: 'Born' }, schema: { formatMaximum: '2008-01-01' } },
        { name: 'children', widget: 'number', label: { en: 'Children' }, schema: { type: 'integer', minimum: 0 } },
        {
          name: 'amount',
          widget: 'money',
          label: { en: 'Amount' },
          required: true,
          schema: { minAmount: '500', maxAmount: '20000.00' },
        },
        { name: 'agree', widget: 'consent', label: { en: 'I agree' }, required: true },
      ],
    },
  ]);
  it('are checked by the schema, one error per field, in form order', () => {
    expect(formProblems(doc)).toEqual([]);
    expect(keys(doc, {})).toEqual(['name:required', 'amount:required', 'agree:required']);
    expect(
      keys(doc, { name: 'A', email: 'nope', born: '2010-02-02', children: 1.5, amount: '499.99', agree: true }),
    ).toEqual(['name:minLength', 'email:email', 'born:dateMax', 'children:integer', 'amount:minAmount']);
    expect(keys(doc, { name: 'Ada', amount: '20000.01', agree: true })).toEqual(['amount:maxAmount']);
    expect(keys(doc, { name: 'Ada', amount: '12.345', agree: true })).toEqual(['amount:money']);
    expect(keys(doc, { name: 'Ada', amount: '20000', agree: true })).toEqual([]);
  });
  it('from a plain form post are typed as the schema wants', () => {
    const posted = coercePosted(doc, { name: ' Ada ', children: '2', amount: '1 500,50', agree: 'on', extra: 'x' }, [
      'name',
      'children',
      'amount',
      'agree',
      'extra',
    ]);
    expect(posted).toEqual({ name: 'Ada', children: 2, amount: '1500.50', agree: true });
    expect(keys(doc, posted)).toEqual([]);
    expect(keys(doc, coercePosted(doc, { name: 'Ada', amount: '900' }, ['name', 'amount', 'agree']))).toEqual([
      'agree:required',
    ]);
  });
  it('money is compared exactly, in cents', () => {
    expect(amountCents('0.1')).toBe(10n);
    expect(amountCents('9999999999999.99')).toBe(999999999999999n);
    expect(amountCents('1e3')).toBeNull();
  });
});

describe('documents', () => {
  it('keep required in step with visibility', () => {
    let doc = addField(emptyForm(), 0, {
      name: 'kind',
      widget: 'radio',
      label: { en: 'Kind' },
      required: true,
      ui: {
        options: [
          { value: 'a', label: { en: 'A' } },
          { value: 'b', label: { en: 'B' } },
        ],
      },
    });
    doc = addField(doc, 0, {
      name: 'why',
      widget: 'text',
      label: { en: 'Why' },
      required: true,
      ui: { visibleWhen: { field: 'kind', in: ['b'] } },
    });
    expect(formProblems(doc)).toEqual([]);
    expect(doc.schema.required).toEqual(['kind']);
    expect(keys(doc, { kind: 'a' })).toEqual([]);
    expect(keys(doc, { kind: 'b' })).toEqual(['why:required']);
    const optional = withRequired(doc, 'why', false);
    expect(optional.schema.allOf).toBeUndefined();
    expect(keys(optional, { kind: 'b' })).toEqual([]);
    // A rule that differs from the field's visibility is refused.
    const drifted: FormDocument = structuredClone(doc);
    drifted.ui.fields.why.visibleWhen = { field: 'kind', in: ['a'] };
    expect(formProblems(drifted).map((p) => p.key)).toContain('conditionalRule');
  });
  it('refuse what the renderers cannot honour', () => {
    const base = formOf([{ id: 's', title: { en: 'S' }, fields: [{ name: 'x', widget: 'text', label: { en: 'X' } }] }]);
    const broken = (change: (doc: FormDocument) => void) => {
      const doc = structuredClone(base) as FormDocument;
      change(doc);
      return formProblems(doc).map((p) => p.key);
    };
    expect(broken((d) => ((d.schema.properties.x as Record<string, unknown>).$ref = '#'))).toContain('keyword');
    expect(broken((d) => (d.schema.properties.x.pattern = '['))).toContain('pattern');
    expect(broken((d) => delete d.schema.properties.x.maxLength)).toContain('maxLength');
    expect(broken((d) => (d.ui.steps[0].fields = []))).toContain('notPlaced');
    expect(broken((d) => ((d.schema as Record<string, unknown>).additionalProperties = true))).toContain('schemaShape');
    expect(broken((d) => (d.ui.fields.x.widget = 'number'))).toContain('widgetType');
    expect(broken((d) => (d.ui.fields.x.visibleWhen = { field: 'x', in: ['1'] }))).toContain('visibleWhenEarlier');
    expect(() => parseFormDocument({ schema: {}, ui: {} })).toThrow(/not valid/);
  });
  it('run patterns in linear time, so no answer can hold the server', () => {
    // On a backtracking engine each of these takes seconds to hours on such answers (the test would time out).
    const cases: [string, string, boolean][] = [
      ['^(\\w|\\d)+$', `${'1'.repeat(3000)}!`, false],
      ['^(a|a?)+$', `${'a'.repeat(3000)}!`, false],
      ['^(a+)+$', `${'a'.repeat(3000)}b`, false],
      ['^\\d*\\d*\\d*\\d*x$', '1'.repeat(3000), false],
      ['^[A-Z]{2}[0-9]{6}$', 'AB123456', true],
    ];
    for (const [pattern, answer, matches] of cases) {
      const doc = formOf([
        {
          id: 's',
          title: { en: 'S' },
          fields: [{ name: 'x', widget: 'text', label: { en: 'X' }, schema: { pattern, maxLength: 4000 } }],
        },
      ]);
      expect(formProblems(doc), pattern).toEqual([]);
      expect(validateAnswers(doc, { x: answer }).ok, pattern).toBe(matches);
    }
  });
  it('refuse patterns the engine cannot run (backreferences, lookarounds)', () => {
    for (const pattern of ['(a)\\1', '(?=a)b', '(?<!a)b']) {
      const doc = formOf([
        {
          id: 's',
          title: { en: 'S' },
          fields: [{ name: 'x', widget: 'text', label: { en: 'X' }, schema: { pattern } }],
        },
      ]);
      expect(
        formProblems(doc).map((p) => p.key),
        pattern,
      ).toContain('pattern');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFY_FORM, type FormDefinition } from './config.ts';
import { formProblems } from './notify-form-rules.ts';

const clone = (): FormDefinition => structuredClone(DEFAULT_NOTIFY_FORM);
const keys = (form: FormDefinition) => formProblems(form).map((p) => `${p.path}:${p.key}`);

describe('notify form rules', () => {
  it('accepts the default form', () => {
    expect(formProblems(DEFAULT_NOTIFY_FORM)).toEqual([]);
  });

  it('wants unique, well-formed names', () => {
    const form = clone();
    form.fields[2].name = 'Channel';
    expect(keys(form)).toContain('fields[2].name:nameTaken');
    form.fields[2].name = '1 bad name';
    expect(keys(form)).toContain('fields[2].name:nameFormat');
  });

  it('wants options where the type needs them, and none elsewhere', () => {
    const form = clone();
    form.fields[1].options = [];
    expect(keys(form)).toContain('fields[1].options:optionsRequired');
    form.fields[2].options = [{ value: 'a', label: 'A' }];
    expect(keys(form)).toContain('fields[2].options:optionsNotAllowed');
    const dup = clone();
    dup.fields[0].options!.push({ value: 'Message', label: 'Again' });
    expect(keys(dup)).toContain('fields[0].options[4].value:optionTaken');
  });

  it('wants a visibility condition on an earlier field with options, naming existing values', () => {
    const later = clone();
    later.fields[0].visibleWhen = { field: 'Client_Feedback', in: ['Neutral'] };
    expect(keys(later)).toContain('fields[0].visibleWhen.field:visibleWhenEarlier');
    const unknown = clone();
    unknown.fields[2].visibleWhen = { field: 'Channel', in: ['Fax'] };
    expect(formProblems(unknown)).toContainEqual({
      path: 'fields[2].visibleWhen.in',
      key: 'visibleWhenValue',
      params: { value: 'Fax' },
    });
    const onText = clone();
    onText.fields.push({
      name: 'More',
      type: 'text',
      label: 'More',
      required: false,
      visibleWhen: { field: 'Comment', in: ['x'] },
    });
    expect(keys(onText)).toContain('fields[3].visibleWhen.field:visibleWhenOptions');
  });

  it('wants rows only on a text area, between 1 and 20', () => {
    const form = clone();
    form.fields[2].rows = 50;
    expect(keys(form)).toContain('fields[2].rows:rows');
  });
});

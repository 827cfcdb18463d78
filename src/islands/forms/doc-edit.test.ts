import { describe, expect, it } from 'vitest';
import { addField, emptyForm } from '#lib/forms/build.ts';
import { formProblems } from '#lib/forms/check.ts';
import { isRequired } from '#lib/forms/fields.ts';
import {
  addStep,
  addWidget,
  controllersFor,
  moveField,
  nameProblem,
  removeField,
  removeStep,
  renameField,
  setFieldUi,
  setRule,
  withText,
} from './doc-edit.ts';

const base = () => {
  let doc = addField(emptyForm(), 0, {
    name: 'Channel',
    widget: 'radio',
    label: { en: 'Channel' },
    required: true,
    ui: {
      options: [
        { value: 'a', label: { en: 'A' } },
        { value: 'b', label: { en: 'B' } },
      ],
    },
  });
  doc = addField(doc, 0, { name: 'Why', widget: 'text', label: { en: 'Why' }, required: true });
  return setFieldUi(doc, 'Why', { visibleWhen: { field: 'Channel', in: ['b'] } });
};

describe('form builder edits', () => {
  it('keeps required in step with visibility when a rule is set, a field renamed or removed', () => {
    const doc = base();
    expect(formProblems(doc)).toEqual([]);
    expect(doc.schema.required).toEqual(['Channel']);
    expect(doc.schema.allOf?.[0]).toMatchObject({ then: { required: ['Why'] } });
    const renamed = renameField(doc, 'Channel', 'How');
    expect(formProblems(renamed)).toEqual([]);
    expect(renamed.ui.fields.Why.visibleWhen?.field).toBe('How');
    expect(isRequired(renamed, 'Why')).toBe(true);
    const removed = removeField(doc, 'Channel');
    expect(formProblems(removed)).toEqual([]);
    expect(removed.ui.fields.Why.visibleWhen).toBeUndefined();
    expect(removed.schema.required).toEqual(['Why']);
    const unruled = setFieldUi(doc, 'Why', { visibleWhen: undefined });
    expect(unruled.schema.required).toEqual(['Channel', 'Why']);
    expect(unruled.schema.allOf).toBeUndefined();
  });

  it('options keep the enum; names are checked; rules and texts are set and removed', () => {
    let doc = setFieldUi(base(), 'Channel', {
      options: [
        { value: 'a', label: { en: 'A' } },
        { value: 'b', label: { en: 'B' } },
        { value: 'c', label: { en: 'C' } },
      ],
    });
    expect(doc.schema.properties.Channel.enum).toEqual(['a', 'b', 'c']);
    expect(nameProblem(doc, 'Why', 'Channel')).toBe('taken');
    expect(nameProblem(doc, 'Why', '1x')).toBe('format');
    expect(renameField(doc, 'Why', 'Channel')).toBe(doc);
    doc = setRule(doc, 'Why', 'minLength', 3);
    expect(doc.schema.properties.Why.minLength).toBe(3);
    doc = setRule(doc, 'Why', 'minLength', undefined);
    expect('minLength' in doc.schema.properties.Why).toBe(false);
    expect(withText({ en: 'Hi' }, 'fr', 'Salut', false)).toEqual({ en: 'Hi', fr: 'Salut' });
    expect(withText({ en: '' }, 'en', '', true)).toBeUndefined();
  });

  it('moves fields across steps and removes steps with their fields; only earlier choice fields control', () => {
    let doc = addStep(base(), { en: 'Two' });
    doc = moveField(doc, 'Why', 1);
    expect(doc.ui.steps.map((s) => s.fields)).toEqual([['Channel'], ['Why']]);
    doc = moveField(doc, 'Why', -1);
    expect(doc.ui.steps[0].fields).toEqual(['Channel', 'Why']);
    expect(moveField(doc, 'Channel', -1)).toBe(doc);
    doc = moveField(moveField(doc, 'Why', 1), 'Why', 1);
    expect(doc.ui.steps[1].fields).toEqual(['Why']);
    expect(controllersFor(doc, 'Why')).toEqual(['Channel']);
    expect(controllersFor(doc, 'Channel')).toEqual([]);
    const { doc: added, name } = addWidget(doc, 1, 'consent', { en: 'I agree' });
    expect(name).toBe('consent_1');
    expect(added.ui.fields[name].consentText).toEqual({ en: 'I agree' });
    const gone = removeStep(added, 1);
    expect(gone.ui.steps).toHaveLength(1);
    expect(Object.keys(gone.schema.properties)).toEqual(['Channel']);
    expect(formProblems(gone)).toEqual([]);
  });
});

import { CHOICE_WIDGETS, textOf, type FormDocument } from './document.ts';

/**
 * One stored answer in words, for the people who read submissions (the detail page, the export):
 * a choice by its label in the language asked for, a checkbox or consent as yes/no, anything else as
 * given. Money stays the exact decimal string (the page formats it with the tenant's currency).
 */
export type AnswerWords = { yes: string; no: string };

export function answerText(
  doc: FormDocument,
  name: string,
  value: unknown,
  language: string,
  words: AnswerWords,
): string {
  if (value === undefined || value === null || value === '') return '';
  const ui = doc.ui.fields[name];
  if (typeof value === 'boolean') return value ? words.yes : words.no;
  if (ui && CHOICE_WIDGETS.includes(ui.widget) && typeof value === 'string') {
    const option = ui.options?.find((o) => o.value === value);
    return option ? textOf(option.label, language) : value;
  }
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

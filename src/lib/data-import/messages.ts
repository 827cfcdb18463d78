import type { TFunction } from 'i18next';
import { validationMessage } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import type { RowError } from './run.ts';

/** A row error in the reader's language: the import's own messages, else the validation messages. */
export function rowErrorText(t: TFunction, language: Language, error: RowError): string {
  if (error.key?.startsWith('dataimport.'))
    return t(`dataimport:errors.${error.key.slice('dataimport.'.length)}`, { ...error.params, column: error.column });
  if (error.key) return validationMessage(language, error.key, error.params, error.column);
  return error.message;
}

/** A refusal of the whole file (wrong type, mapping) in the reader's language, when the import words it. */
export function refusalText(t: TFunction, message: string, details: Record<string, unknown> | undefined): string {
  const key = details?.messageKey;
  if (typeof key !== 'string') return message;
  return t(`dataimport:errors.${key}`, (details?.params ?? {}) as Record<string, unknown>);
}

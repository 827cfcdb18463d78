import type { TFunction } from 'i18next';
import { AppError } from '#lib/errors/app-error.ts';
import { isSinkType, SETTINGS_FIELDS, SINK_TYPES, type SinkType } from '#lib/sinks/settings.ts';

/** Page glue of admin › notifications › events (no SQL: the reads and commands are in src/lib/sinks). */

export const TYPE_ORDER: readonly SinkType[] = SINK_TYPES;

/** The `:database_type` of the URL, or the section's 404. */
export function sinkTypeParam(raw: string | undefined): SinkType {
  if (!raw || !isSinkType(raw)) throw new AppError('NOT_FOUND', 'There is no such type of event sink.');
  return raw;
}

/** The command input from the add/edit form: name, events, and the settings fields of the type. */
export function sinkFormInput(values: Record<string, string>, type: SinkType): Record<string, string> {
  const input: Record<string, string> = { name: values.name ?? '', events: values.events ?? '' };
  for (const field of SETTINGS_FIELDS[type]) if (values[field] !== undefined) input[field] = values[field];
  return input;
}

/** "3 min ago" from a number of seconds. */
export function ageText(t: TFunction, seconds: number): string {
  if (seconds < 120) return t('sinks:age.seconds', { count: seconds });
  if (seconds < 7200) return t('sinks:age.minutes', { count: Math.round(seconds / 60) });
  if (seconds < 172_800) return t('sinks:age.hours', { count: Math.round(seconds / 3600) });
  return t('sinks:age.days', { count: Math.round(seconds / 86_400) });
}

export function lagText(t: TFunction, figures: { lagEvents: number; lagSeconds: number }): string {
  if (figures.lagEvents === 0) return t('sinks:lagZero');
  return t('sinks:lagValue', { count: figures.lagEvents, age: ageText(t, figures.lagSeconds) });
}

import type { TFunction } from 'i18next';
import { EVENT_AREAS, EVENT_TYPES } from '#lib/events/catalog.ts';
import type { FieldError } from '../pages/form-command.ts';

/** What the webhook form posts, as the commands read it. */
export type WebhookFormValues = { url: string; description: string; events: string[]; enabled: boolean };

export function webhookInput(form: FormData): WebhookFormValues {
  return {
    url: String(form.get('url') ?? ''),
    description: String(form.get('description') ?? ''),
    events: form.getAll('events').map(String),
    enabled: form.get('enabled') === 'on',
  };
}

/** The event choices, by area: the area's pattern then its named types. */
export function eventGroups(): { area: string; pattern: string; types: string[] }[] {
  return [...new Set(Object.values(EVENT_AREAS))].map((area) => ({
    area,
    pattern: `${area}.*`,
    types: EVENT_TYPES.filter((type) => type.startsWith(`${area}.`)),
  }));
}

/**
 * A refusal in the page's language: the URL guard and the event check answer in English for the API,
 * so the page words its own fields.
 */
export function localError(error: FieldError | null, t: TFunction): FieldError | null {
  if (!error) return null;
  if (error.field === 'url')
    return {
      field: 'url',
      message: /public address/.test(error.message) ? t('webhooks:errors.urlPrivate') : t('webhooks:errors.url'),
    };
  if (error.field === 'events') return { field: 'events', message: t('webhooks:errors.events') };
  if (error.field === 'description') return { field: 'description', message: t('webhooks:errors.description') };
  if (error.field === 'expectedRevision') return { message: t('webhooks:errors.conflict') };
  return error;
}

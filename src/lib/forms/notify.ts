import { formOf } from './build.ts';
import type { FormDocument, FormOption } from './document.ts';

/**
 * The default customer-notification form (spec §3) in the one form format: Channel, a required icon
 * radio; Client_Feedback, a required icon radio shown only when Channel is PhoneCall, InPerson or
 * Other; Comment, an optional 4-row text area with the same visibility.
 */
const FEEDBACK_VISIBLE_WHEN = { field: 'Channel', in: ['PhoneCall', 'InPerson', 'Other'] };

const option = (value: string, en: string, fr: string, icon: FormOption['icon']): FormOption => ({
  value,
  label: { en, fr },
  icon,
});

export const DEFAULT_NOTIFY_FORM: FormDocument = formOf([
  {
    id: 'notify',
    title: { en: 'Notify the customer', fr: 'Notifier le client' },
    fields: [
      {
        name: 'Channel',
        widget: 'icon_radio',
        label: {
          en: 'How did you propose the offer to your customer?',
          fr: 'Comment avez-vous proposé l’offre au client ?',
        },
        required: true,
        ui: {
          options: [
            option('Message', 'Message', 'Message', 'message'),
            option('PhoneCall', 'Phone call', 'Appel téléphonique', 'phone-call'),
            option('InPerson', 'In person', 'En personne', 'in-person'),
            option('Other', 'Other', 'Autre', 'other'),
          ],
        },
      },
      {
        name: 'Client_Feedback',
        widget: 'icon_radio',
        label: { en: 'What was their level of interest?', fr: 'Quel était son niveau d’intérêt ?' },
        required: true,
        ui: {
          visibleWhen: FEEDBACK_VISIBLE_WHEN,
          options: [
            option('Uninterested', 'Uninterested', 'Pas intéressé', 'uninterested'),
            option('Neutral', 'Neutral', 'Neutre', 'neutral'),
            option('Interested', 'Interested', 'Intéressé', 'interested'),
            option('Unknown', 'Unknown', 'Inconnu', 'unknown'),
          ],
        },
      },
      {
        name: 'Comment',
        widget: 'textarea',
        label: { en: 'Customer comments (optional)', fr: 'Commentaires du client (facultatif)' },
        required: false,
        ui: { rows: 4, visibleWhen: FEEDBACK_VISIBLE_WHEN },
      },
    ],
  },
]);

/** The form format before issue 13 (`{ fields: [{ name, type, label, required, options, rows, visibleWhen }] }`). */
type LegacyField = {
  name: string;
  type: 'icon_radio' | 'radio' | 'select' | 'text' | 'textarea';
  label: string;
  required: boolean;
  options?: { value: string; label: string; icon?: string }[];
  rows?: number;
  visibleWhen?: { field: string; in: string[] };
};

export function isLegacyForm(raw: unknown): raw is { fields: LegacyField[] } {
  return !!raw && typeof raw === 'object' && Array.isArray((raw as { fields?: unknown }).fields);
}

/** A stored form of the old format in the one format (same names, texts, rules and order; labels in English). */
export function upgradeLegacyForm(raw: { fields: LegacyField[] }): FormDocument {
  return formOf([
    {
      id: 'notify',
      title: { en: 'Notify the customer', fr: 'Notifier le client' },
      fields: raw.fields.map((f) => ({
        name: f.name,
        widget: f.type,
        label: { en: f.label },
        required: f.required,
        schema: f.type === 'text' ? { maxLength: 200 } : f.type === 'textarea' ? { maxLength: 2000 } : {},
        ui: {
          ...(f.options
            ? {
                options: f.options.map((o) => ({
                  value: o.value,
                  label: { en: o.label },
                  ...(o.icon ? { icon: o.icon as FormOption['icon'] } : {}),
                })),
              }
            : {}),
          ...(f.rows !== undefined ? { rows: f.rows } : {}),
          ...(f.visibleWhen ? { visibleWhen: f.visibleWhen } : {}),
        },
      })),
    },
  ]);
}

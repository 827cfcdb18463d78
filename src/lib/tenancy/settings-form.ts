import { DEFAULT_NOTIFY_FORM } from '../forms/notify.ts';

/**
 * The general-settings page's plain forms, one per section, as the partial update that
 * PATCH /v1/tenant-settings takes: the page runs the same command with it (src/lib/tenancy/settings.ts).
 * Values stay as typed where they are not what the schema wants, so its refusal names the field.
 */
export const SETTINGS_SECTIONS = [
  'general',
  'languages',
  'session',
  'offer',
  'notify_reset',
  'cbs',
  'sso',
  'sso_remove',
  'password',
] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

export function isSettingsSection(value: unknown): value is SettingsSection {
  return typeof value === 'string' && (SETTINGS_SECTIONS as readonly string[]).includes(value);
}

type Values = Record<string, string>;
type Form = { getAll(name: string): unknown[] };

const whole = (text: string | undefined) => (text !== undefined && /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : text);
const strings = (form: Form, name: string) => form.getAll(name).filter((v): v is string => typeof v === 'string');

export function patchFromForm(section: SettingsSection, values: Values, form: Form): unknown {
  switch (section) {
    case 'general':
      return { name: values.name ?? '' };
    case 'languages':
      return { languages: strings(form, 'languages'), default_language: values.default_language ?? '' };
    case 'session':
      return { config: { auto_logout: { timeout: whole(values.timeout ?? '') } } };
    case 'offer':
      return { config: { offer: { requestLoan: values.request_loan === 'on' } } };
    case 'notify_reset':
      return { config: { notify_customer_modal_config: { form: DEFAULT_NOTIFY_FORM } } };
    case 'cbs':
      return { config: { cbs: { name: values.cbs_name ?? '', application_form: values.application_form || null } } };
    case 'sso':
      return {
        config: {
          login: {
            sso: {
              issuer: (values.issuer ?? '').trim(),
              client_id: values.client_id ?? '',
              client_secret: values.client_secret ?? '',
              label: values.label ?? '',
              roles: strings(form, 'roles'),
            },
          },
        },
      };
    case 'sso_remove':
      return { config: { login: { sso: null } } };
    case 'password':
      return { config: { login: { password: values.password_sign_in === 'on' } } };
  }
}

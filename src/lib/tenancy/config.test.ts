import { describe, expect, it } from 'vitest';
import { isRequired, visibleNames } from '../forms/fields.ts';
import { DEFAULT_NOTIFY_FORM } from '../forms/notify.ts';
import { projectIdOf, publicTenantConfig, readTenantConfig } from './config.ts';

const tenant = (config: Record<string, unknown>) => ({
  id: 'demo-eu1',
  config,
  currency: 'EUR',
  locale: 'fr-FR',
  timeZone: 'Europe/Paris',
});

describe('tenant configuration', () => {
  it('fills every default for an empty config', () => {
    expect(readTenantConfig(tenant({}))).toEqual({
      login: { password: true },
      language_options: [
        { value: 'en-US', label: 'English' },
        { value: 'fr-FR', label: 'Français' },
      ],
      offer: { requestLoan: true },
      notify_customer_modal_config: { form: DEFAULT_NOTIFY_FORM },
      cbs: { name: 'internal', application_form: null },
      auto_logout: { timeout: 60 },
      tenantId: 'demo-eu1',
      projectId: 'demo',
      currency: 'EUR',
      locale: 'fr-FR',
      time_zone: 'Europe/Paris',
    });
  });

  it('holds the default notification form exactly (one form format)', () => {
    const { schema, ui } = DEFAULT_NOTIFY_FORM;
    expect(ui.steps.flatMap((step) => step.fields)).toEqual(['Channel', 'Client_Feedback', 'Comment']);
    expect(ui.fields.Channel).toMatchObject({
      widget: 'icon_radio',
      label: { en: 'How did you propose the offer to your customer?' },
    });
    expect(ui.fields.Channel.options?.map((o) => o.value)).toEqual(['Message', 'PhoneCall', 'InPerson', 'Other']);
    expect(ui.fields.Channel.visibleWhen).toBeUndefined();
    expect(ui.fields.Client_Feedback).toMatchObject({
      widget: 'icon_radio',
      label: { en: 'What was their level of interest?' },
      visibleWhen: { field: 'Channel', in: ['PhoneCall', 'InPerson', 'Other'] },
    });
    expect(schema.properties.Client_Feedback.enum).toEqual(['Uninterested', 'Neutral', 'Interested', 'Unknown']);
    expect(ui.fields.Comment).toMatchObject({
      widget: 'textarea',
      label: { en: 'Customer comments (optional)' },
      rows: 4,
      visibleWhen: { field: 'Channel', in: ['PhoneCall', 'InPerson', 'Other'] },
    });
    expect(isRequired(DEFAULT_NOTIFY_FORM, 'Channel')).toBe(true);
    expect(isRequired(DEFAULT_NOTIFY_FORM, 'Client_Feedback')).toBe(true);
    expect(isRequired(DEFAULT_NOTIFY_FORM, 'Comment')).toBe(false);
  });

  it('upgrades a stored notify form of the old format when read, and refuses a broken document by name', () => {
    const config = readTenantConfig(
      tenant({
        notify_customer_modal_config: {
          form: {
            fields: [
              {
                name: 'Channel',
                type: 'radio',
                label: 'Channel',
                required: true,
                options: [
                  { value: 'PhoneCall', label: 'Phone' },
                  { value: 'Message', label: 'Message' },
                ],
              },
              {
                name: 'Note',
                type: 'textarea',
                label: 'Note',
                required: false,
                rows: 3,
                visibleWhen: { field: 'Channel', in: ['PhoneCall'] },
              },
            ],
          },
        },
      }),
    );
    const form = config.notify_customer_modal_config.form;
    expect(form.ui.fields.Note).toMatchObject({ widget: 'textarea', rows: 3, label: { en: 'Note' } });
    expect([...visibleNames(form, { Channel: 'PhoneCall' })]).toEqual(['Channel', 'Note']);
    expect([...visibleNames(form, { Channel: 'Message' })]).toEqual(['Channel']);
    expect(() => readTenantConfig(tenant({ notify_customer_modal_config: { form: { schema: {}, ui: {} } } }))).toThrow(
      /notify_customer_modal_config/,
    );
  });

  it('keeps stored values and names the field of a bad one', () => {
    const config = readTenantConfig(
      tenant({
        auto_logout: { timeout: 300 },
        offer: { requestLoan: false },
        cbs: { name: 'fineract', application_form: 'f-1' },
      }),
    );
    expect(config.auto_logout.timeout).toBe(300);
    expect(config.offer.requestLoan).toBe(false);
    expect(config.cbs).toEqual({ name: 'fineract', application_form: 'f-1' });
    expect(() => readTenantConfig(tenant({ auto_logout: { timeout: 'soon' } }))).toThrow(/auto_logout.timeout/);
    expect(() => readTenantConfig(tenant({ login: { sso: { issuer: 'not a url', client_id: 'x' } } }))).toThrow(
      /login.sso.issuer/,
    );
  });

  it('hides the SSO client secret from islands and derives the project id', () => {
    const config = readTenantConfig(
      tenant({ login: { sso: { issuer: 'https://idp.test', client_id: 'app', client_secret: 's3cret' } } }),
    );
    expect(JSON.stringify(publicTenantConfig(config))).not.toContain('s3cret');
    expect(projectIdOf('demo-eu1')).toBe('demo');
    expect(projectIdOf('my-lender-us2')).toBe('my-lender');
    expect(projectIdOf('solo')).toBe('solo');
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFY_FORM, projectIdOf, publicTenantConfig, readTenantConfig } from './config.ts';

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

  it('holds the default notification form exactly', () => {
    const [channel, feedback, comment] = DEFAULT_NOTIFY_FORM.fields;
    expect(channel).toMatchObject({
      name: 'Channel',
      type: 'icon_radio',
      required: true,
      label: 'How did you propose the offer to your customer?',
    });
    expect(channel.options?.map((o) => o.value)).toEqual(['Message', 'PhoneCall', 'InPerson', 'Other']);
    expect(channel.visibleWhen).toBeUndefined();
    expect(feedback).toMatchObject({
      name: 'Client_Feedback',
      type: 'icon_radio',
      required: true,
      label: 'What was their level of interest?',
      visibleWhen: { field: 'Channel', in: ['PhoneCall', 'InPerson', 'Other'] },
    });
    expect(feedback.options?.map((o) => o.value)).toEqual(['Uninterested', 'Neutral', 'Interested', 'Unknown']);
    expect(comment).toEqual({
      name: 'Comment',
      type: 'textarea',
      label: 'Customer comments (optional)',
      required: false,
      rows: 4,
      visibleWhen: { field: 'Channel', in: ['PhoneCall', 'InPerson', 'Other'] },
    });
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

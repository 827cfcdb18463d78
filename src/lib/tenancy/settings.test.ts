import { beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../auth/secret-box.ts';
import { DEFAULT_NOTIFY_FORM } from '../forms/notify.ts';
import { patchFromForm } from './settings-form.ts';
import { mergeConfig, settingsPatchSchema, sniffLogo } from './settings.ts';

beforeAll(() => {
  process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';
});

const form = (entries: [string, string][]) => ({
  getAll: (name: string) => entries.filter(([key]) => key === name).map(([, value]) => value),
});

describe('merging a settings patch into the stored configuration', () => {
  const stored = {
    auto_logout: { timeout: 1800 },
    offer: { requestLoan: true },
    login: { password: true, sso: { issuer: 'https://idp.example.com', client_id: 'app', client_secret: 'plain-old' } },
  };

  it('keeps what the patch does not name', () => {
    const next = mergeConfig(stored, { offer: { requestLoan: false } });
    expect(next.auto_logout).toEqual({ timeout: 1800 });
    expect(next.offer).toEqual({ requestLoan: false });
  });

  it('seals a new secret, keeps the stored one when left empty, and seals a plain one at any save', () => {
    const sso = { issuer: 'https://idp.example.com', client_id: 'app', label: 'Example' };
    const withNew = mergeConfig(stored, { login: { sso: { ...sso, client_secret: 'brand-new' } } });
    const sealed = (withNew.login as { sso: { client_secret: string } }).sso.client_secret;
    expect(sealed).toMatch(/^enc:v1:/);
    expect(openSecret(sealed)).toBe('brand-new');
    const kept = mergeConfig(withNew, { login: { sso: { ...sso, client_secret: '' } } });
    expect((kept.login as { sso: { client_secret: string } }).sso.client_secret).toBe(sealed);
    const resealed = mergeConfig(stored, { auto_logout: { timeout: 60 } });
    const secret = (resealed.login as { sso: { client_secret: string } }).sso.client_secret;
    expect(secret).toMatch(/^enc:v1:/);
    expect(openSecret(secret)).toBe('plain-old');
    expect(mergeConfig(stored, { login: { sso: null } }).login).toEqual({ password: true, sso: null });
  });
});

describe('the page forms as patches', () => {
  it('reads each section into the shape PATCH /v1/tenant-settings takes', () => {
    const parse = (section: Parameters<typeof patchFromForm>[0], values: Record<string, string>, entries = []) =>
      settingsPatchSchema.safeParse(patchFromForm(section, values, form(entries)));
    expect(parse('session', { timeout: '1200' }).data).toEqual({ config: { auto_logout: { timeout: 1200 } } });
    expect(parse('session', { timeout: 'soon' }).error?.issues[0].path.join('.')).toBe('config.auto_logout.timeout');
    expect(parse('offer', {}).data).toEqual({ config: { offer: { requestLoan: false } } });
    expect(
      settingsPatchSchema.parse(
        patchFromForm(
          'languages',
          { default_language: 'fr' },
          form([
            ['languages', 'en'],
            ['languages', 'fr'],
          ]),
        ),
      ),
    ).toEqual({ languages: ['en', 'fr'], default_language: 'fr' });
    expect(parse('notify_reset', {}).data).toEqual({
      config: { notify_customer_modal_config: { form: DEFAULT_NOTIFY_FORM } },
    });
    expect(parse('password', { password_sign_in: 'on' }).data).toEqual({ config: { login: { password: true } } });
  });
});

describe('logo files, by content', () => {
  it('knows PNG and JPEG by their signatures and recognises SVG whatever the name', () => {
    expect(sniffLogo(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(sniffLogo(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffLogo(new TextEncoder().encode('  <?xml version="1.0"?><svg></svg>'))).toBe('svg');
    expect(sniffLogo(new TextEncoder().encode('<svg onload="x()"/>'))).toBe('svg');
    expect(sniffLogo(new TextEncoder().encode('GIF89a'))).toBeNull();
    expect(sniffLogo(new Uint8Array())).toBeNull();
  });
});

/**
 * The tenant configuration, read from tenants.config (jsonb) plus the tenant's currency,
 * locale and time zone columns: a typed, zod-validated reader with a default for every field, so a
 * tenant with an empty `{}` config still gets a complete, valid configuration. A stored value that is
 * malformed is an operator error: `readTenantConfig` names the field.
 */
import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { formProblems } from '../forms/check.ts';
import type { FormDocument } from '../forms/document.ts';
import { DEFAULT_NOTIFY_FORM, isLegacyForm, upgradeLegacyForm } from '../forms/notify.ts';
import type { Tenant } from './tenant.ts';

/**
 * The notify-customer form (notify_customer_modal_config.form) is a form document of the one form
 * format (src/lib/forms). A form stored in the format from before issue 13 (`{ fields: [...] }`) is
 * upgraded when read, so an untouched tenant keeps working; an invalid document is refused by name.
 */
const notifyFormSchema = z.preprocess(
  (raw) => (isLegacyForm(raw) ? upgradeLegacyForm(raw) : raw),
  z.custom<FormDocument>((raw) => formProblems(raw).length === 0, 'not a valid form document'),
);

const languageOptionSchema = z.object({
  value: z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/, 'a locale such as en-US'),
  label: z.string().min(1),
});

const ssoSchema = z.object({
  issuer: z.url(),
  client_id: z.string().min(1),
  /** Stored encrypted (src/lib/auth/secret-box.ts); a plain value from before encryption still reads. */
  client_secret: z.string().optional(),
  label: z.string().optional(),
  /** Role ids (table roles) given to a user at their first single sign-on (src/lib/auth/oidc.ts). */
  roles: z.array(z.string().min(1)).optional(),
});

/** What may be stored in tenants.config; every field optional, defaults filled in. */
const storedConfigSchema = z.object({
  login: z
    .object({
      /** Email + password sign-in offered on /user/login. */
      password: z.boolean().default(true),
      /** Single sign-on provider (src/lib/auth/oidc.ts reads the same object). */
      sso: ssoSchema.nullable().optional(),
    })
    .default({ password: true }),
  language_options: z
    .array(languageOptionSchema)
    .min(1)
    .default([
      { value: 'en-US', label: 'English' },
      { value: 'fr-FR', label: 'Français' },
    ]),
  offer: z.object({ requestLoan: z.boolean().default(true) }).default({ requestLoan: true }),
  notify_customer_modal_config: z
    .object({ form: notifyFormSchema.default(DEFAULT_NOTIFY_FORM) })
    .default({ form: DEFAULT_NOTIFY_FORM }),
  cbs: z
    .object({
      /** Core banking system the tenant's loans live in ('internal' = this product's own engine). */
      name: z.string().min(1).default('internal'),
      /** Id of the application form used to request a loan; null = the product's built-in form. */
      application_form: z.string().min(1).nullable().default(null),
    })
    .default({ name: 'internal', application_form: null }),
  auto_logout: z.object({ timeout: z.number().int().min(10).max(86_400).default(60) }).default({ timeout: 60 }),
});

export type StoredConfig = z.infer<typeof storedConfigSchema>;

export type TenantConfig = z.infer<typeof storedConfigSchema> & {
  tenantId: string;
  /** The project id: the tenant id without its final dash-suffix. */
  projectId: string;
  currency: string;
  locale: string;
  time_zone: string;
};

/** The project id of a tenant id such as 'demo-eu1' → 'demo'. */
export function projectIdOf(tenantId: string): string {
  const dash = tenantId.lastIndexOf('-');
  return dash > 0 ? tenantId.slice(0, dash) : tenantId;
}

/** Validates a stored config object (admin settings call this before saving). Throws BAD_REQUEST naming the field. */
export function parseStoredConfig(raw: unknown): z.infer<typeof storedConfigSchema> {
  const result = storedConfigSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.join('.');
    throw new AppError('BAD_REQUEST', `Tenant configuration ${field}: ${issue.message}`, { field });
  }
  return result.data;
}

/** The complete configuration of a tenant, defaults filled in. */
export function readTenantConfig(
  tenant: Pick<Tenant, 'id' | 'config' | 'currency' | 'locale' | 'timeZone'>,
): TenantConfig {
  return {
    ...parseStoredConfig(tenant.config),
    tenantId: tenant.id,
    projectId: projectIdOf(tenant.id),
    currency: tenant.currency,
    locale: tenant.locale,
    time_zone: tenant.timeZone,
  };
}

/**
 * What the islands may see: everything but the SSO client secret.
 */
export function publicTenantConfig(config: TenantConfig): TenantConfig {
  const sso = config.login.sso
    ? {
        issuer: config.login.sso.issuer,
        client_id: config.login.sso.client_id,
        label: config.login.sso.label,
      }
    : config.login.sso;
  return { ...config, login: { ...config.login, sso } };
}

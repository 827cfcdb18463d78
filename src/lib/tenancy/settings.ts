import { z } from 'zod';
import enSettings from '../i18n/locales/en/settings.json' with { type: 'json' };
import frSettings from '../i18n/locales/fr/settings.json' with { type: 'json' };
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { providerConfiguration, ssoConfigOf, type SsoTestOutcome } from '../auth/oidc.ts';
import { isSealed, sealSecret } from '../auth/secret-box.ts';
import type { Tx } from '../db/index.ts';
import type { TenantsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { LANGUAGES, type Language } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import { featureAccess } from '../plans/plans.ts';
import enForms from '../i18n/locales/en/forms.json' with { type: 'json' };
import frForms from '../i18n/locales/fr/forms.json' with { type: 'json' };
import { formProblems } from '../forms/check.ts';
import { isPublishedForm } from '../forms/staff-form.ts';
import { parseStoredConfig, type StoredConfig } from './config.ts';

/**
 * The tenant's general settings (admin › platform › general settings, GET/PATCH /v1/tenant-settings):
 * the tenant row's name and languages, and the configuration of spec §3 in tenants.config. One
 * command changes them, whether the page's plain forms or the notify-form island sends the change:
 * a partial update merged into what is stored, checked by the configuration's own schema
 * (parseStoredConfig) and the rules across fields below, saved and audited with before and after.
 * The single sign-on client secret is write-only: stored encrypted, never in a view or the audit log.
 * The tenant row is read per request (findTenant), so a change shows at the next page load.
 */

const BUNDLES = { en: enSettings, fr: frSettings } as Record<Language, unknown>;

/** A message of the `settings:errors` namespace in the request's language ({{name}} parameters filled in). */
export function settingsMessage(language: Language, key: string, params: Record<string, string | number> = {}) {
  const find = (bundle: unknown) =>
    (bundle as { errors?: Record<string, string> } | undefined)?.errors?.[key] ?? undefined;
  const template = find(BUNDLES[language]) ?? find(BUNDLES.en) ?? key;
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ''));
}

function refuse(language: Language, field: string, key: string, params: Record<string, string | number> = {}) {
  return new AppError('BAD_REQUEST', settingsMessage(language, key, params), { field });
}

// ---------------------------------------------------------------------------------------------
// Reading

export type SsoView = {
  issuer: string;
  client_id: string;
  label: string;
  roles: string[];
  /** Whether a client secret is stored; the secret itself never leaves the server. */
  client_secret_set: boolean;
};

export type TenantSettingsView = {
  name: string;
  languages: string[];
  default_language: string;
  currency: string;
  locale: string;
  time_zone: string;
  /** View only: the daily close advances it. */
  business_date: string;
  config: Omit<StoredConfig, 'login'> & { login: { password: boolean; sso: SsoView | null } };
  logo: { content_type: string; updated_at: string } | null;
};

type SettingsRow = Pick<
  TenantsRow,
  'name' | 'languages' | 'default_language' | 'currency' | 'locale' | 'time_zone' | 'logo_updated_at'
> & { config: Record<string, unknown>; business_date: string; logo_type: string | null };

async function loadRow(tx: Tx, tenantId: string, forUpdate = false): Promise<SettingsRow> {
  const [row] = await tx.query<SettingsRow>(
    `select t.name, t.languages, t.default_language, t.currency, t.locale, t.time_zone, t.config, t.logo_updated_at,
            to_char(t.business_date, 'YYYY-MM-DD') as business_date,
            (select l.content_type from tenant_logos l where l.tenant_id = t.id) as logo_type
       from tenants t where t.id = $1 ${forUpdate ? 'for update of t' : ''}`,
    [tenantId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Unknown tenant');
  return row;
}

function viewOf(row: SettingsRow): TenantSettingsView {
  const config = parseStoredConfig(row.config);
  const sso = config.login.sso;
  return {
    name: row.name,
    languages: row.languages,
    default_language: row.default_language,
    currency: row.currency.trim(),
    locale: row.locale,
    time_zone: row.time_zone,
    business_date: row.business_date,
    config: {
      ...config,
      login: {
        password: config.login.password,
        sso: sso
          ? {
              issuer: sso.issuer,
              client_id: sso.client_id,
              label: sso.label ?? '',
              roles: sso.roles ?? [],
              client_secret_set: Boolean(sso.client_secret),
            }
          : null,
      },
    },
    logo:
      row.logo_type && row.logo_updated_at
        ? { content_type: row.logo_type, updated_at: new Date(row.logo_updated_at).toISOString() }
        : null,
  };
}

/** The tenant's settings as GET /v1/tenant-settings answers them (no secret). */
export async function getTenantSettings(tx: Tx, tenantId: string): Promise<TenantSettingsView> {
  return viewOf(await loadRow(tx, tenantId));
}

/** The roles an administrator may give SSO users (id and name), by name. */
export async function roleChoices(tx: Tx): Promise<{ id: string; name: string }[]> {
  return tx.query<{ id: string; name: string }>('select id::text as id, name from roles order by name');
}

// ---------------------------------------------------------------------------------------------
// Changing

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ssoPatchSchema = z
  .object({
    issuer: z.url().max(500),
    client_id: z.string().trim().min(1).max(200),
    /** Empty or absent: keep the stored secret. */
    client_secret: z.string().max(1000).optional(),
    label: z.string().trim().max(80).optional(),
    roles: z.array(z.string().regex(UUID)).max(50).optional(),
  })
  .strict();

/** PATCH /v1/tenant-settings: every part optional; what is absent stays as it is. */
export const settingsPatchSchema = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    languages: z.array(z.enum(LANGUAGES)).min(1).optional(),
    default_language: z.enum(LANGUAGES).optional(),
    config: z
      .object({
        login: z
          .object({ password: z.boolean().optional(), sso: ssoPatchSchema.nullable().optional() })
          .strict()
          .optional(),
        offer: z.object({ requestLoan: z.boolean() }).strict().optional(),
        // A form document (src/lib/forms), checked by formProblems in checkRules (422 naming the problem).
        notify_customer_modal_config: z
          .object({ form: z.record(z.string(), z.unknown()) })
          .strict()
          .optional(),
        cbs: z
          .object({
            name: z.string().trim().min(1).max(60).optional(),
            application_form: z.string().nullable().optional(),
          })
          .strict()
          .optional(),
        auto_logout: z
          .object({ timeout: z.number().int().min(10).max(86_400) })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

type Raw = Record<string, unknown>;
const objectOf = (value: unknown): Raw =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : {};

/** Plain http only for a provider on this machine (tests, development), as src/lib/auth/oidc.ts allows. */
function isAcceptableIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/**
 * The stored configuration after a patch: sections merged one level down (a section's absent keys
 * stay), the SSO client secret sealed when given, kept when left empty for the same provider (issuer
 * and client ID unchanged) and dropped otherwise, so a changed issuer never receives the old secret;
 * and a stored plain secret re-sealed. Pure apart from the encryption.
 */
export function mergeConfig(stored: Raw, patch: NonNullable<SettingsPatch['config']>): Raw {
  const next: Raw = { ...stored };
  for (const section of ['offer', 'notify_customer_modal_config', 'cbs', 'auto_logout'] as const) {
    if (patch[section] !== undefined) next[section] = { ...objectOf(stored[section]), ...patch[section] };
  }
  if (patch.login) {
    const login = { ...objectOf(stored.login) };
    if (patch.login.password !== undefined) login.password = patch.login.password;
    if (patch.login.sso === null) login.sso = null;
    else if (patch.login.sso) {
      const current = objectOf(login.sso);
      const { client_secret: secret, ...rest } = patch.login.sso;
      const sso: Raw = { ...rest };
      const isSameProvider = current.issuer === rest.issuer && current.client_id === rest.client_id;
      if (secret) sso.client_secret = sealSecret(secret);
      else if (isSameProvider && typeof current.client_secret === 'string' && current.client_secret)
        sso.client_secret = current.client_secret;
      if (rest.roles === undefined && Array.isArray(current.roles)) sso.roles = current.roles;
      login.sso = sso;
    }
    next.login = login;
  }
  const sso = objectOf(objectOf(next.login).sso);
  if (typeof sso.client_secret === 'string' && sso.client_secret && !isSealed(sso.client_secret))
    next.login = { ...objectOf(next.login), sso: { ...sso, client_secret: sealSecret(sso.client_secret) } };
  return next;
}

/** The stored configuration validated by its own schema, a refusal naming the field under `config.`. */
function validateStored(raw: Raw): StoredConfig {
  try {
    return parseStoredConfig(raw);
  } catch (error) {
    if (error instanceof AppError && error.field)
      throw new AppError('BAD_REQUEST', error.message, { field: `config.${error.field}` });
    throw error;
  }
}

/** A notify form that is not a valid form document: 422 naming the first problem's path, all in details.problems. */
function checkNotifyForm(patch: SettingsPatch, language: Language): void {
  const form = patch.config?.notify_customer_modal_config?.form;
  if (form) {
    const problems = formProblems(form);
    if (problems.length) {
      const [first] = problems;
      const bundle = (language === 'fr' ? frForms : enForms) as { problems?: Record<string, string> };
      const template =
        bundle.problems?.[first.key] ?? enForms.problems?.[first.key as keyof typeof enForms.problems] ?? first.key;
      const message = template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(first.params?.[name] ?? ''));
      throw new AppError('UNPROCESSABLE', message, {
        field: `config.notify_customer_modal_config.form.${first.path}`,
        details: { problems },
      });
    }
  }
}

async function checkRules(
  tx: Tx,
  actor: Actor,
  patch: SettingsPatch,
  next: { languages: string[]; defaultLanguage: string; config: StoredConfig; raw: Raw; secretDropped: boolean },
  language: Language,
): Promise<void> {
  if (new Set(next.languages).size !== next.languages.length) throw refuse(language, 'languages', 'languagesUnique');
  if (!next.languages.includes(next.defaultLanguage))
    throw refuse(language, patch.default_language ? 'default_language' : 'languages', 'defaultLanguage');
  // The staff application form: a published application form of this tenant, or null (the built-in form).
  const applicationForm = patch.config?.cbs?.application_form;
  if (applicationForm && !(await isPublishedForm(tx, applicationForm)))
    throw refuse(language, 'config.cbs.application_form', 'applicationFormUnknown');
  // The provider decides who signs in as whom (a verified e-mail links an account), and SSO roles are
  // given without an administrator's choice per person: sign-in settings are administrators' only,
  // even for a role that holds admin.basic_settings.edit.
  if (patch.config?.login && !actor.isAdmin)
    throw new AppError('FORBIDDEN', settingsMessage(language, 'loginAdminsOnly'), { field: 'config.login' });
  const sso = patch.config?.login?.sso;
  if (sso && !isAcceptableIssuer(sso.issuer)) throw refuse(language, 'config.login.sso.issuer', 'issuerHttps');
  if (sso?.roles?.length) {
    const found = await tx.query<{ id: string }>('select id::text as id from roles where id::text = any($1::text[])', [
      sso.roles,
    ]);
    const known = new Set(found.map((r) => r.id.toLowerCase()));
    const missing = sso.roles.findIndex((id) => !known.has(id.toLowerCase()));
    if (missing >= 0) throw refuse(language, `config.login.sso.roles[${missing}]`, 'unknownRole');
  }
  // Never lock everyone out: password sign-in goes off only with single sign-on set up, in the plan,
  // and its provider answering. Checked whenever the sign-in settings change.
  if (patch.config?.login && next.config.login.password === false) {
    const field = patch.config.login.sso === null ? 'config.login.sso' : 'config.login.password';
    const working = ssoConfigOf({ config: next.raw });
    if (!working) throw refuse(language, field, 'passwordOffNeedsSso');
    // A new issuer or client ID without its secret: the stored one was dropped, SSO would not work.
    if (next.secretDropped) throw refuse(language, 'config.login.sso.client_secret', 'passwordOffSecretDropped');
    const access = await featureAccess(tx, actor.tenantId, 'sso');
    if (!access.isEnabled) throw refuse(language, field, 'passwordOffNeedsPlan');
    // Someone must still be able to administer the lender: an active administrator linked to this provider.
    const [linkedAdmin] = await tx.query(
      `select 1 from users u
         join oidc_links l on l.tenant_id = u.tenant_id and l.user_id = u.id and l.issuer = $1
        where u.is_active and exists (
          select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
           where ur.tenant_id = u.tenant_id and ur.user_id = u.id and r.is_admin)
        limit 1`,
      [working.issuer],
    );
    if (!linkedAdmin) throw refuse(language, field, 'passwordOffNeedsLinkedAdmin');
    try {
      await providerConfiguration(working);
    } catch {
      throw refuse(language, field, 'passwordOffUnreachable');
    }
  }
}

/** What the audit log keeps of the settings: the view (no secret), and whether the secret changed. */
function auditView(view: TenantSettingsView, secretChanged = false) {
  return secretChanged ? { ...view, client_secret_changed: true } : view;
}

export async function updateTenantSettings(
  tx: Tx,
  actor: Actor,
  patch: SettingsPatch,
  language: Language,
): Promise<TenantSettingsView> {
  const row = await loadRow(tx, actor.tenantId, true);
  const before = viewOf(row);
  const raw = patch.config ? mergeConfig(row.config, patch.config) : row.config;
  checkNotifyForm(patch, language);
  const config = validateStored(raw);
  const next = {
    name: patch.name ?? row.name,
    languages: patch.languages ?? row.languages,
    defaultLanguage: patch.default_language ?? row.default_language,
  };
  const hadSecret = Boolean(objectOf(objectOf(row.config.login).sso).client_secret);
  const hasSecret = Boolean(objectOf(objectOf(raw.login).sso).client_secret);
  const secretDropped = Boolean(patch.config?.login?.sso) && hadSecret && !hasSecret;
  await checkRules(tx, actor, patch, { ...next, config, raw, secretDropped }, language);
  await tx.query(
    'update tenants set name = $2, languages = $3, default_language = $4, config = $5::jsonb where id = $1',
    [actor.tenantId, next.name, next.languages, next.defaultLanguage, JSON.stringify(raw)],
  );
  const after = viewOf({ ...row, ...next, default_language: next.defaultLanguage, config: raw });
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'tenant.settings.update',
    objectType: 'tenant',
    objectId: actor.tenantId,
    before: auditView(before),
    after: secretDropped
      ? { ...auditView(after), client_secret_removed: true }
      : auditView(after, Boolean(patch.config?.login?.sso?.client_secret)),
    outcome: 'success',
  });
  return after;
}

export const updateTenantSettingsCommand = defineCommand({
  action: 'tenant.settings.update',
  objectType: 'tenant',
  permission: need('admin.basic_settings.edit'),
  input: settingsPatchSchema,
  run: (tx, actor, patch, request) => updateTenantSettings(tx, actor, patch, request.language),
});

/** Where the "test sign-in" callback sends the administrator back to, with its outcome. */
export function ssoTestResultPath(outcome: SsoTestOutcome): string {
  const query = new URLSearchParams(
    outcome.ok
      ? {
          sso_test: 'ok',
          sso_subject: outcome.subject,
          sso_email: outcome.email ?? '',
          sso_linked: outcome.isLinked ? '1' : '0',
        }
      : { sso_test: 'failed', sso_reason: outcome.code },
  );
  return `/admin/platform/general-settings?${query}#sso`;
}

// ---------------------------------------------------------------------------------------------
// Logo

export const LOGO_MAX_BYTES = 256 * 1024;
export type LogoType = 'image/png' | 'image/jpeg';

/**
 * The image type of a file by its content, not its name: PNG or JPEG only. SVG is refused (it can
 * carry script, and sanitising it safely is more than a logo is worth); so is anything else.
 */
export function sniffLogo(bytes: Uint8Array): LogoType | 'svg' | null {
  const starts = (sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  const head = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (head.startsWith('<?xml') || head.startsWith('<svg') || head.includes('<svg')) return 'svg';
  return null;
}

const logoInput = z.object({ bytes: z.instanceof(Uint8Array) });

export async function setTenantLogo(
  tx: Tx,
  actor: Actor,
  bytes: Uint8Array,
  language: Language,
): Promise<TenantSettingsView> {
  if (bytes.length === 0) throw refuse(language, 'logo', 'logoEmpty');
  if (bytes.length > LOGO_MAX_BYTES) throw refuse(language, 'logo', 'logoTooLarge', { max: '256 KB' });
  const type = sniffLogo(bytes);
  if (type === 'svg') throw refuse(language, 'logo', 'logoSvg');
  if (!type) throw refuse(language, 'logo', 'logoType');
  const before = await loadRow(tx, actor.tenantId, true);
  const now = new Date();
  await tx.query(
    `insert into tenant_logos (tenant_id, content_type, bytes, updated_at, updated_by) values ($1, $2, $3, $4, $5)
     on conflict (tenant_id) do update set content_type = excluded.content_type, bytes = excluded.bytes,
       updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [actor.tenantId, type, bytes, now, actor.kind === 'user' || !actor.kind ? actor.userId : null],
  );
  await tx.query('update tenants set logo_updated_at = $2 where id = $1', [actor.tenantId, now]);
  const after = await loadRow(tx, actor.tenantId);
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'tenant.logo.update',
    objectType: 'tenant',
    objectId: actor.tenantId,
    before: { logo: viewOf(before).logo },
    after: { logo: viewOf(after).logo, size: bytes.length },
    outcome: 'success',
  });
  return viewOf(after);
}

export async function removeTenantLogo(tx: Tx, actor: Actor): Promise<TenantSettingsView> {
  const before = await loadRow(tx, actor.tenantId, true);
  await tx.query('delete from tenant_logos where tenant_id = $1', [actor.tenantId]);
  await tx.query('update tenants set logo_updated_at = null where id = $1', [actor.tenantId]);
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'tenant.logo.remove',
    objectType: 'tenant',
    objectId: actor.tenantId,
    before: { logo: viewOf(before).logo },
    after: { logo: null },
    outcome: 'success',
  });
  return viewOf(await loadRow(tx, actor.tenantId));
}

export const setTenantLogoCommand = defineCommand({
  action: 'tenant.logo.update',
  objectType: 'tenant',
  permission: need('admin.basic_settings.edit'),
  input: logoInput,
  run: (tx, actor, { bytes }, request) => setTenantLogo(tx, actor, bytes, request.language),
});

export const removeTenantLogoCommand = defineCommand({
  action: 'tenant.logo.remove',
  objectType: 'tenant',
  permission: need('admin.basic_settings.edit'),
  input: z.object({}).passthrough(),
  run: (tx, actor) => removeTenantLogo(tx, actor),
});

/** The tenant's logo file, or null. */
export async function readTenantLogo(
  tx: Tx,
  tenantId: string,
): Promise<{ contentType: LogoType; bytes: Uint8Array; updatedAt: Date } | null> {
  const [row] = await tx.query<{ content_type: LogoType; bytes: Uint8Array; updated_at: Date }>(
    'select content_type, bytes, updated_at from tenant_logos where tenant_id = $1',
    [tenantId],
  );
  return row ? { contentType: row.content_type, bytes: row.bytes, updatedAt: row.updated_at } : null;
}

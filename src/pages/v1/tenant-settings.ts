import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { getTenantSettings, updateTenantSettingsCommand } from '#lib/tenancy/settings.ts';

/** GET /v1/tenant-settings → the tenant's settings (name, languages, configuration, logo), without the SSO client secret. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor) => getTenantSettings(tx, actor.tenantId));

/**
 * PATCH /v1/tenant-settings { name?, languages?, default_language?, config?: { … } } → the settings
 * after the change. What is absent stays as it is; an empty `config.login.sso.client_secret` keeps the
 * stored secret. A refusal is a 400 naming the field ("config.auto_logout.timeout").
 */
export const PATCH: APIRoute = (context) =>
  commandEndpoint(apiContext(context), updateTenantSettingsCommand, {
    objectId: context.locals.principal?.tenantId ?? null,
    answer: (view) => ({ status: 200, body: view }),
  });

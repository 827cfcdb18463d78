import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import {
  getTranslations,
  missingKeysSchema,
  parseLanguage,
  parseNamespace,
  recordMissingKeys,
} from '#lib/i18n/translations.ts';

/** GET /v1/translations/{lng}/{ns}: the bundled texts with the tenant's overrides on top. */
export const GET: APIRoute = ({ params, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const language = parseLanguage(params.lng);
    const namespace = parseNamespace(params.ns);
    const resources = await getTranslations(await pageDb(), { tenantId: principal.tenantId, language, namespace });
    // Private: overrides are per tenant. Short cache so an island burst on one page asks once.
    return json(resources, { headers: { 'cache-control': 'private, max-age=60' } });
  });

/** POST /v1/translations/{lng}/{ns}: `{ "key": "fallback text", … }` — keys missing from the bundle, for translators. */
export const POST: APIRoute = ({ params, request, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const language = parseLanguage(params.lng);
    const namespace = parseNamespace(params.ns);
    if (Number(request.headers.get('content-length') ?? 0) > 64 * 1024)
      throw new AppError('PAYLOAD_TOO_LARGE', 'Too many missing keys in one request.');
    const keys = await readJson(request, missingKeysSchema);
    const stored = await recordMissingKeys(await pageDb(), { tenantId: principal.tenantId, language, namespace, keys });
    return json({ stored }, { status: 202 });
  });

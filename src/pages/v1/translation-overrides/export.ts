import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { exportOverridesResponse } from '#lib/i18n/overrides-http.ts';

/** GET /v1/translation-overrides/export?format=json|xlsx → the tenant's overrides as an attachment. */
export const GET: APIRoute = (context) => exportOverridesResponse(apiContext(context));

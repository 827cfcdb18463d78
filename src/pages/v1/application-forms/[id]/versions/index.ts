import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { listFormVersions } from '#lib/forms/application-forms.ts';

/** GET /v1/application-forms/{id}/versions → { items }: the published versions, newest first. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: await listFormVersions(tx, context.params.id ?? '') }));

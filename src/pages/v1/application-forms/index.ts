import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createFormCommand, listApplicationForms } from '#lib/forms/application-forms.ts';

/** GET /v1/application-forms → { items }: every application form with its status, version, products and submission count. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: await listApplicationForms(tx) }));

/**
 * POST /v1/application-forms { name, slug, description?, copyFrom? } → 201 the form: an empty one-step
 * form, or a copy of the draft of `copyFrom`. A slug taken (by any tenant) is a 409 naming `slug`.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createFormCommand, { answer: (form) => ({ status: 201, body: form }) });

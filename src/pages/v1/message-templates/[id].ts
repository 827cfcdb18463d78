import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import {
  deleteTemplateCommand,
  getTemplate,
  templateJson,
  updateTemplateCommand,
} from '#lib/conversations/templates.ts';

/** GET /v1/message-templates/{id} → the template. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => templateJson(await getTemplate(tx, context.params.id ?? '')));

/** PATCH /v1/message-templates/{id} { …fields to change } → the template (administrators). */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateTemplateCommand, {
    objectId: id,
    input: (body) => ({ ...(body as object), id }),
    answer: (t) => ({ status: 200, body: templateJson(t) }),
  });
};

/** DELETE /v1/message-templates/{id} → { id } (administrators). */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteTemplateCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (out) => ({ status: 200, body: out }),
  });
};

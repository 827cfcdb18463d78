import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createTemplateCommand, listTemplates, templateJson } from '#lib/conversations/templates.ts';

/** GET /v1/message-templates → { items }: the tenant's message templates (EN and FR texts). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listTemplates(tx)).map(templateJson) }));

/** POST /v1/message-templates { code, name, channel, purpose, subjectEn, bodyEn, subjectFr, bodyFr } → 201 the template (administrators). */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createTemplateCommand, {
    answer: (t) => ({ status: 201, body: templateJson(t) }),
  });

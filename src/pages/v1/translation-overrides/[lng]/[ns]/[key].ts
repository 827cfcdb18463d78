import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { removeOverrideCommand, setOverrideCommand } from '#lib/i18n/overrides.ts';

const target = (params: Record<string, string | undefined>) => ({
  language: params.lng ?? '',
  namespace: params.ns ?? '',
  key: params.key ?? '',
});

/** PUT /v1/translation-overrides/{lng}/{ns}/{key} { value } → the override (checked: key, length, placeholders). */
export const PUT: APIRoute = (context) => {
  const t = target(context.params);
  return commandEndpoint(apiContext(context), setOverrideCommand, {
    objectId: `${t.language}/${t.namespace}/${t.key}`,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), ...t }),
    answer: (override) => ({ status: 200, body: override }),
  });
};

/** DELETE /v1/translation-overrides/{lng}/{ns}/{key} → the bundled text is back. */
export const DELETE: APIRoute = (context) => {
  const t = target(context.params);
  return commandEndpoint(apiContext(context), removeOverrideCommand, {
    objectId: `${t.language}/${t.namespace}/${t.key}`,
    input: () => t,
    answer: (result) => ({ status: 200, body: result }),
  });
};

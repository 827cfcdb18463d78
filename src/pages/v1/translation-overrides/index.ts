import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { LANGUAGES } from '#lib/i18n/index.ts';
import { NAMESPACES, listOverrides } from '#lib/i18n/overrides.ts';

/** GET /v1/translation-overrides?language=en&namespace=nav&search=… → { items: [{ language, namespace, key, value, updated_at }] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const q = new QueryReader(url.searchParams, ['language', 'namespace', 'search']);
    return {
      items: await listOverrides(tx, {
        language: q.oneOf('language', LANGUAGES),
        namespace: q.oneOf('namespace', NAMESPACES),
        search: q.text('search', { max: 100 }),
      }),
    };
  });

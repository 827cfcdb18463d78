import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { DOWNLOAD_STATUSES, listTenantDownloads, tenantDownloadJson } from '#lib/downloads/admin.ts';

/**
 * GET /v1/admin/downloads?userId=&kind=&status=&page=&limit= → every generated file of the tenant, or
 * only the caller's own when their data permissions restrict them (`ownOnly: true`).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const q = new QueryReader(url.searchParams, ['userId', 'kind', 'status', 'page', 'limit']);
    const result = await listTenantDownloads(tx, principal, {
      userId: q.uuid('userId'),
      kind: q.text('kind', { max: 100 }),
      status: q.oneOf('status', DOWNLOAD_STATUSES),
      page: q.int('page', { min: 1, max: 100_000, fallback: 1 }),
      pageSize: q.int('limit', { min: 1, max: 200, fallback: 50 }),
    });
    return { ...result, items: result.items.map(tenantDownloadJson) };
  });

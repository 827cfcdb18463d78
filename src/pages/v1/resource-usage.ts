import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { readUsage } from '#lib/data-flow/read.ts';

/**
 * GET /v1/resource-usage → { months: ['2025-12', …] (12, the tenant's zone), timeZone, measures: [{ id,
 * unit, values: { 'YYYY-MM': n }, limit: { feature, plan, unlimited, limit, used } | null }] }.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor, url) => {
    new QueryReader(url.searchParams, []);
    const usage = await readUsage(tx, actor.tenantId);
    return {
      months: usage.months,
      timeZone: usage.timeZone,
      measures: usage.measures.map((m) => ({
        id: m.id,
        unit: m.unit,
        values: m.values,
        limit: m.limit,
        error: m.error,
      })),
    };
  });

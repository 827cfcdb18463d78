import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { FAILURES_KEPT, getRun, runFailures } from '#lib/data-quality/run.ts';

/**
 * GET /v1/data-quality/runs/{id}/failures?rule=customers.invalid_email&limit=100&offset=0 → { rule,
 * items: [{ rowId, customerId, detail, href }], kept } (at most 1,000 rows are kept per rule). 404 for
 * an unknown run or rule.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const q = new QueryReader(url.searchParams, ['rule', 'limit', 'offset']);
    const rule = q.text('rule', { max: 100 }) ?? '';
    const limit = q.int('limit', { min: 1, max: FAILURES_KEPT, fallback: 100 });
    const offset = q.int('offset', { min: 0, max: FAILURES_KEPT, fallback: 0 });
    const run = await getRun(tx, context.params.id ?? '');
    const { rule: result, rows, kept } = await runFailures(tx, run.id, rule, { limit, offset });
    return {
      rule: result,
      kept,
      items: rows.map((r) => ({ rowId: r.row_id, customerId: r.customer_id, detail: r.detail, href: r.href })),
    };
  });

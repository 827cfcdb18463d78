import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listMetrics, metricJson, saveMetricCommand } from '#lib/analytics/metrics.ts';

/** GET /v1/analytics/metrics → { items: [metric…] } (definitions; GET one metric for its value). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listMetrics(tx)).map(metricJson) }));

/**
 * POST /v1/analytics/metrics { type: count|sum|average|ratio, name, labelEn, labelFr, dataset, filters,
 * field?, numerator?, denominator?, format, showOnBoard } → 201 the metric; 400 naming the field;
 * 409 when the type already has this name.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), saveMetricCommand, {
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), currentName: null }),
    answer: (metric) => ({ status: 201, body: metricJson(metric) }),
  });

import type { APIRoute } from 'astro';
import { z } from 'zod';
import { AppError } from '#lib/errors/app-error.ts';
import { getT } from '#lib/i18n/index.ts';
import { apiContext, query } from '#lib/lending/api.ts';
import {
  checkMetric,
  explainMetric,
  metricDefinitionSchema,
  metricValue,
  METRIC_TYPES,
  valuesJson,
} from '#lib/analytics/metrics.ts';
import { parseScope } from '#lib/tenancy/scope.ts';

const previewSchema = metricDefinitionSchema.extend({
  type: z.enum(METRIC_TYPES),
  name: z.string().default('preview'),
  labelEn: z.string().default('-'),
  labelFr: z.string().default('-'),
});

/**
 * POST /v1/analytics/metrics/preview { type, dataset, filters, field?, numerator?, denominator?, format }
 * → { values: [{ currency, value }], explanation }: the value over the caller's scope (`?scope=level:id`
 * narrows it), nothing saved.
 */
export const POST: APIRoute = (context) => {
  const ctx = apiContext(context);
  return query(ctx, async (tx, _actor, url, principal) => {
    const body = await context.request.json().catch(() => null);
    const parsed = previewSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError('BAD_REQUEST', issue.message, { field: issue.path.map(String).join('.') || 'body' });
    }
    const metric = checkMetric(parsed.data.type, parsed.data);
    const values = await metricValue(tx, principal, metric, parseScope(url.searchParams.get('scope')));
    const t = await getT(ctx.language ?? 'en');
    return { values: valuesJson(values), explanation: explainMetric(t, metric) };
  });
};

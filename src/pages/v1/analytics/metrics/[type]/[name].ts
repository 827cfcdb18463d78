import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import {
  deleteMetricCommand,
  findMetric,
  metricJson,
  metricValue,
  saveMetricCommand,
  valuesJson,
} from '#lib/analytics/metrics.ts';
import { parseScope } from '#lib/tenancy/scope.ts';

/** GET /v1/analytics/metrics/{type}/{name}?scope=level:id → the metric with `values` over the caller's scope (404 unknown). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const metric = await findMetric(tx, context.params.type ?? '', context.params.name ?? '');
    if (!metric) throw new AppError('NOT_FOUND', 'This metric does not exist.');
    const values = await metricValue(tx, principal, metric, parseScope(url.searchParams.get('scope')));
    return { ...metricJson(metric), values: valuesJson(values) };
  });

/** PUT /v1/analytics/metrics/{type}/{name} { …definition, expectedRevision? } → the metric (409 stale or name taken). */
export const PUT: APIRoute = (context) => {
  const type = context.params.type ?? '';
  const name = context.params.name ?? '';
  return commandEndpoint(apiContext(context), saveMetricCommand, {
    objectId: `${type}/${name}`,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), type, currentName: name }),
    answer: (metric) => ({ status: 200, body: metricJson(metric) }),
  });
};

/** DELETE /v1/analytics/metrics/{type}/{name} → the deleted metric; 409 while a report uses it. */
export const DELETE: APIRoute = (context) => {
  const type = context.params.type ?? '';
  const name = context.params.name ?? '';
  return commandEndpoint(apiContext(context), deleteMetricCommand, {
    objectId: `${type}/${name}`,
    input: () => ({ type, name }),
    answer: (metric) => ({ status: 200, body: { ...metricJson(metric), deleted: true } }),
  });
};

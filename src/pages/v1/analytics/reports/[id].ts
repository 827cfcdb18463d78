import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import {
  deleteReportCommand,
  findReport,
  reportJson,
  runJson,
  runReport,
  saveReportCommand,
} from '#lib/analytics/reports.ts';
import { parseScope } from '#lib/tenancy/scope.ts';

/** GET /v1/analytics/reports/{id}?scope=level:id → the report with `results` (cells and totals) over the caller's scope. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const report = await findReport(tx, context.params.id ?? '');
    if (!report) throw new AppError('NOT_FOUND', 'This report does not exist.');
    const run = await runReport(tx, principal, report, parseScope(url.searchParams.get('scope')));
    return { ...reportJson(report), results: runJson(run) };
  });

/** PUT /v1/analytics/reports/{id} { …definition, expectedRevision? } → the report (409 when stale). */
export const PUT: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), saveReportCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (report) => ({ status: 200, body: reportJson(report) }),
  });
};

/** DELETE /v1/analytics/reports/{id} → the deleted report. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteReportCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (report) => ({ status: 200, body: { ...reportJson(report), deleted: true } }),
  });
};

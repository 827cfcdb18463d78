import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listReports, reportJson, saveReportCommand } from '#lib/analytics/reports.ts';

/** GET /v1/analytics/reports → { items: [report…] } (definitions; GET one report for its results). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listReports(tx)).map(reportJson) }));

/**
 * POST /v1/analytics/reports { name, dataset, filters, rows, columns?, measures: [{ fn, field? } | { metric: "type/name" }] }
 * → 201 the report; 400 naming the field.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), saveReportCommand, {
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id: null }),
    answer: (report) => ({ status: 201, body: reportJson(report) }),
  });

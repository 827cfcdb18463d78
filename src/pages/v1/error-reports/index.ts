import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { createErrorReport, errorReportInputSchema, listErrorReports } from '#lib/errors/reports.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { QueryReader } from '#lib/http/query-params.ts';

/** Reports above this size are refused before parsing (the fields are capped again by the schema). */
const MAX_BODY_BYTES = 64 * 1024;

/** POST /v1/error-reports: any signed-in user files a report for their tenant. */
export const POST: APIRoute = ({ request, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'The error report is too large.');
    const report = await readJson(request, errorReportInputSchema);
    const { id } = await createErrorReport(await pageDb(), {
      tenantId: principal.tenantId,
      userId: principal.via === 'session' ? principal.userId : null,
      report,
    });
    return json({ id }, { status: 201 });
  });

/** GET /v1/error-reports?limit=&offset=&open=1 — administrators only (the route manifest says so). */
export const GET: APIRoute = ({ url, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const q = new QueryReader(url.searchParams, ['limit', 'offset', 'open']);
    const limit = q.int('limit', { min: 1, max: 200, fallback: 50 });
    const offset = q.int('offset', { min: 0, max: 1_000_000, fallback: 0 });
    const result = await listErrorReports(await pageDb(), {
      tenantId: principal.tenantId,
      limit,
      offset,
      onlyOpen: q.one('open') === '1',
    });
    return json({
      total: result.total,
      items: result.items.map((r) => ({
        id: r.id,
        user_id: r.userId,
        user_name: r.userName,
        message: r.message,
        stack: r.stack,
        context: r.context,
        report_type: r.reportType,
        is_resolved: r.isResolved,
        created_at: r.createdAt.toISOString(),
      })),
    });
  });

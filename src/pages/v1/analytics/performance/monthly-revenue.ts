import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { boardScope } from '#lib/boards/scope-picker.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { readMonthPeriod } from '#lib/analytics/performance/period.ts';
import { readDimension, revenueJson } from '#lib/analytics/performance/present.ts';
import { REVENUE_DIMENSIONS, loadRevenue } from '#lib/analytics/performance/revenue.ts';

/**
 * Monthly revenue (the board /analytics/performance/monthly-revenue): `by=product|branch`,
 * `from`/`to` (YYYY-MM), `scope=level:id`; amounts as decimal strings in the tenant's currency.
 */
export const GET: APIRoute = ({ locals, url }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const tenant = locals.tenant;
    if (!tenant) throw new AppError('NOT_FOUND', 'No tenant.');
    const by = readDimension(url.searchParams, REVENUE_DIMENSIONS, 'by must be product or branch');
    const db = await pageDb();
    return json(
      await db.tenant(principal.tenantId, async (tx) => {
        const { scope } = await boardScope(tx, principal, url.searchParams.get('scope'));
        const date = await businessDate(tx, principal.tenantId);
        const { from, to } = readMonthPeriod(url.searchParams, date);
        const revenue = await loadRevenue(tx, principal, scope, {
          tenantId: principal.tenantId,
          currency: tenant.currency,
          dimension: by,
          from,
          to,
        });
        return revenueJson(revenue, { businessDate: date, from, to, scope: url.searchParams.get('scope') || null });
      }),
    );
  });

import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { boardScope } from '#lib/boards/scope-picker.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { readMonthPeriod } from '#lib/analytics/performance/period.ts';
import { portfolioJson, readDimension } from '#lib/analytics/performance/present.ts';
import { PORTFOLIO_DIMENSIONS, loadPortfolio } from '#lib/analytics/performance/portfolio.ts';

/**
 * Portfolio analysis (the board /analytics/performance/portfolio-analysis): `by=product|branch|
 * segment|risk_class|term_band|size_band`, `from`/`to` (YYYY-MM), `scope=level:id`; outstanding
 * principal as decimal strings, shares as fractions.
 */
export const GET: APIRoute = ({ locals, url }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const tenant = locals.tenant;
    if (!tenant) throw new AppError('NOT_FOUND', 'No tenant.');
    const by = readDimension(
      url.searchParams,
      PORTFOLIO_DIMENSIONS,
      `by must be one of ${PORTFOLIO_DIMENSIONS.join(', ')}`,
    );
    const db = await pageDb();
    return json(
      await db.tenant(principal.tenantId, async (tx) => {
        const { scope } = await boardScope(tx, principal, url.searchParams.get('scope'));
        const date = await businessDate(tx, principal.tenantId);
        const { from, to } = readMonthPeriod(url.searchParams, date);
        const portfolio = await loadPortfolio(tx, principal, scope, {
          tenantId: principal.tenantId,
          currency: tenant.currency,
          businessDate: date,
          dimension: by,
          from,
          to,
        });
        return portfolioJson(portfolio, { businessDate: date, from, to, scope: url.searchParams.get('scope') || null });
      }),
    );
  });

import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { boardScope } from '#lib/boards/scope-picker.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { readWeekPeriod } from '#lib/analytics/performance/period.ts';
import { bulletJson } from '#lib/analytics/performance/present.ts';
import { BULLET_AMOUNTS, loadBullet, loadBulletWeekLoans } from '#lib/analytics/performance/bullet.ts';
import { fromMinor, toDecimalString } from '#lib/money/money.ts';

/**
 * Bullet loans collection (the board /analytics/risk/bullet-loans-collection): `from`/`to` dates
 * (whole ISO weeks), `scope=level:id`, and `week=YYYY-Www` to add that week's loans; amounts as
 * decimal strings.
 */
export const GET: APIRoute = ({ locals, url }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const tenant = locals.tenant;
    if (!tenant) throw new AppError('NOT_FOUND', 'No tenant.');
    const db = await pageDb();
    return json(
      await db.tenant(principal.tenantId, async (tx) => {
        const { scope } = await boardScope(tx, principal, url.searchParams.get('scope'));
        const date = await businessDate(tx, principal.tenantId);
        const { from, to, week } = readWeekPeriod(url.searchParams, date);
        const options = { tenantId: principal.tenantId, currency: tenant.currency, businessDate: date };
        const bullet = await loadBullet(tx, principal, scope, { ...options, from, to });
        const loans = week ? await loadBulletWeekLoans(tx, principal, scope, { ...options, week }) : null;
        return bulletJson(bullet, {
          businessDate: date,
          scope: url.searchParams.get('scope') || null,
          week,
          loans: loans?.map((l) => ({
            id: l.loanId,
            customerId: l.customerId,
            accountNo: l.accountNo,
            maturityDate: l.maturityDate,
            status: l.status,
            place: l.place,
            ...Object.fromEntries(
              BULLET_AMOUNTS.map((k) => [k, toDecimalString(fromMinor(l.amounts[k], tenant.currency))]),
            ),
          })),
        });
      }),
    );
  });

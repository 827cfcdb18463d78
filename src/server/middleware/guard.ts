import type { MiddlewareHandler } from 'astro';
import { EventBuffer } from '#lib/analytics/events.ts';
import { ApiCallCounter } from '#lib/data-flow/api-calls.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { clientIp } from '#lib/auth/client-ip.ts';
import { getDb } from '#lib/db/index.ts';
import { auditRefusal } from '#lib/lending/api.ts';
import { json } from '#lib/http/respond.ts';
import { getT } from '#lib/i18n/index.ts';
import { featureForRoute } from '#lib/plans/feature-routes.ts';
import { planRefusalText } from '#lib/plans/plan-messages.ts';
import { featureAccess } from '#lib/plans/plans.ts';

/** Page views are written in batches off the request path (src/lib/analytics/events.ts). */
export const pageViews = new EventBuffer(getDb);
/** /v1 calls per tenant and month (resource usage), counted here and written in batches (src/lib/data-flow/api-calls.ts). */
export const apiCalls = new ApiCallCounter(getDb);

/** The plan feature this route needs when the tenant's plan lacks it (src/lib/plans/feature-routes.ts), else null. */
async function planRefusal(
  tenantId: string,
  pattern: string,
  method: string,
): Promise<{ feature: string; plan: string | null } | null> {
  const feature = featureForRoute(pattern, method);
  if (!feature) return null;
  const db = await getDb();
  const access = await db.tenant(tenantId, (tx) => featureAccess(tx, tenantId, feature));
  return access.isEnabled ? null : { feature, plan: access.plan };
}

async function withStatus(response: Response, status: number): Promise<Response> {
  return new Response(response.body, { status, headers: new Headers(response.headers) });
}

/**
 * The guard step, after authenticate has set locals.principal: decides with the route manifest
 * (src/lib/auth/guard.ts) and acts — login redirect, 401/403/404/405 JSON, the section's 403 or 404
 * page with the matching status, or on to the page (recording its page view when it renders).
 */
export const guard: MiddlewareHandler = async (context, next) => {
  const path = context.locals.canonicalPath ?? new URL(context.request.url).pathname;
  const { principal } = context.locals;
  const decision = decideAccess({ method: context.request.method, path, search: context.url.search, principal });
  switch (decision.kind) {
    case 'redirect':
      return new Response(null, { status: 302, headers: { location: decision.location } });
    case 'api-error': {
      // A command refused for lack of permission is audited, as the command itself would have been.
      if (decision.audit && principal) {
        let direct: string | undefined;
        try {
          direct = context.clientAddress;
        } catch {
          direct = undefined;
        }
        const ip = clientIp(direct, context.request.headers.get('x-forwarded-for'));
        await auditRefusal(await getDb(), principal, { ip, requestId: context.locals.requestId }, decision.audit);
      }
      const message = decision.messageKey
        ? (await getT(context.locals.language ?? 'en'))(decision.messageKey)
        : decision.message;
      return json(
        { error: { code: decision.code, message } },
        { status: decision.status, headers: decision.allow ? { allow: decision.allow } : {} },
      );
    }
    case 'forbidden':
      return withStatus(await next(decision.page), 403);
    case 'not-found':
      return withStatus(await next(decision.page), 404);
    case 'allow': {
      if (decision.route) context.locals.route = decision.route;
      const refusal =
        decision.route && principal
          ? await planRefusal(principal.tenantId, decision.route.pattern, context.request.method)
          : null;
      if (refusal) {
        if (path === '/v1' || path.startsWith('/v1/')) {
          const t = await getT(context.locals.language ?? 'en');
          const details = { reason: 'not_in_plan', feature: refusal.feature, plan: refusal.plan };
          return json(
            { error: { code: 'FORBIDDEN', message: planRefusalText(t, details), ...details } },
            { status: 403 },
          );
        }
        context.locals.planRefusal = refusal;
        return withStatus(await next('/plan-required'), 403);
      }
      if (principal && (path === '/v1' || path.startsWith('/v1/')))
        apiCalls.count(principal.tenantId, context.locals.tenant?.timeZone);
      const response = await next();
      // A page's own background refresh (x-background: 1, e.g. /data-flow) is not a page view.
      const isBackground = context.request.headers.get('x-background') === '1';
      if (decision.event && principal && context.request.method === 'GET' && response.status < 400 && !isBackground) {
        pageViews.push({ tenantId: principal.tenantId, name: decision.event, userId: principal.userId, path });
      }
      return response;
    }
  }
};

import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { loanPreClosure } from '#lib/lending/recalculation.ts';

/**
 * GET /v1/loans/{id}/pre-closure?date=YYYY-MM-DD → { date, principal, interest, total, … }: what
 * closes a loan whose product recalculates interest on that date (default: the business date).
 */
export const GET: APIRoute = (context) =>
  query(
    apiContext(context),
    (tx, actor, url) => loanPreClosure(tx, actor.tenantId, context.params.id ?? '', url.searchParams.get('date')),
    { loanId: context.params.id ?? '' },
  );

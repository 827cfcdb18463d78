import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { loadCollectionView } from '#lib/collection/worklist.ts';
import { loanTimeline } from '#lib/timeline/index.ts';

/** GET /v1/collection/cases/{loanId} → the collection view of the loan and its timeline (404 outside the caller's scope). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, _url, principal) => {
    const view = await loadCollectionView(tx, principal, context.params.loanId ?? '');
    return { ...view, timeline: await loanTimeline(tx, view.loan.id) };
  });

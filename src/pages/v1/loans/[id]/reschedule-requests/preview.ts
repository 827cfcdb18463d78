import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { previewLoanReschedule } from '#lib/lending/commands/reschedule-loan.ts';
import { rescheduleInputFromQuery } from '#lib/lending/reschedule-api.ts';

/**
 * GET /v1/loans/{id}/reschedule-requests/preview?rescheduleFromDate=…&extraTerms=… → { before, after,
 * kept }: the schedule now and as an approval would make it (nothing is written).
 */
export const GET: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return query(
    apiContext(context),
    (tx, actor, url) => previewLoanReschedule(tx, actor, loanId, rescheduleInputFromQuery(url)),
    { loanId },
  );
};

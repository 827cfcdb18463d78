import type { APIRoute } from 'astro';
import { apiContext, query } from '../../../../lib/lending/api.ts';
import { getApplicationView } from '../../../../lib/lending/applications.ts';

/** GET /v1/applications/{id} → the application with the actions the caller may take. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), 'loans.loan_applications.view', (tx, actor) => getApplicationView(tx, actor, context.params.id ?? ''), {
    applicationId: context.params.id ?? '',
  });

import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getLoanView } from '#lib/lending/loans.ts';

/** GET /v1/loans/{id} → the loan with installments, transactions and the actions possible now. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx) => getLoanView(tx, context.params.id ?? ''), { loanId: context.params.id ?? '' });

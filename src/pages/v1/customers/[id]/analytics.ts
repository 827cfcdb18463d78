import type { APIRoute } from 'astro';
import { analyticsHttp, filesContext } from '#lib/customer-files/http.ts';

/** GET /v1/customers/{id}/analytics → transaction metrics, repayment behaviour, class history, credit analysis. */
export const GET: APIRoute = (context) => analyticsHttp(filesContext(context));

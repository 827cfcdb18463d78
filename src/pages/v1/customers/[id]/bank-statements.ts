import type { APIRoute } from 'astro';
import { filesContext, importStatementHttp } from '#lib/customer-files/http.ts';

/** POST /v1/customers/{id}/bank-statements?name=… with the CSV as the body: imports it all or nothing. */
export const POST: APIRoute = (context) => importStatementHttp(filesContext(context));

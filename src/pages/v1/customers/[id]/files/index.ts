import type { APIRoute } from 'astro';
import { filesContext, listFilesHttp, uploadFileHttp } from '#lib/customer-files/http.ts';

/** GET /v1/customers/{id}/files → the customer's files; POST (raw body, ?kind=&name=) uploads one. */
export const GET: APIRoute = (context) => listFilesHttp(filesContext(context));
export const POST: APIRoute = (context) => uploadFileHttp(filesContext(context));

import type { APIRoute } from 'astro';
import { downloadFileHttp, filesContext } from '#lib/customer-files/http.ts';

/** GET /v1/customers/{id}/files/{fileId} → the file's bytes (customer.files.download), audited. */
export const GET: APIRoute = (context) => downloadFileHttp(filesContext(context));

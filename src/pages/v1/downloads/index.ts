import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { listDownloads, toDownloadJson } from '#lib/downloads/downloads.ts';
import { handle, json } from '#lib/http/respond.ts';

/** GET /v1/downloads: the caller's own generated files, newest first (polled by the downloads list). */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const items = await listDownloads(await pageDb(), { tenantId: principal.tenantId, userId: principal.userId });
    return json({ items: items.map(toDownloadJson) });
  });

import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { env } from '#lib/config/env.ts';
import { openTenantDownload } from '#lib/downloads/admin.ts';
import { fileResponse } from '#lib/http/file-response.ts';
import { handle } from '#lib/http/respond.ts';
import { pageDb } from '../../../../../server/db.ts';

/** GET /v1/admin/downloads/{id}/file: a finished file of the tenant (admin.downloads.view), only one's own under data permissions. */
export const GET: APIRoute = ({ params, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const { download, path } = await openTenantDownload(await pageDb(), {
      tenantId: principal.tenantId,
      id: params.id ?? '',
      dataDir: env().dataDir,
      viewer: principal,
    });
    return fileResponse(path, download);
  });

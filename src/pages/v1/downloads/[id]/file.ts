import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { requirePrincipal } from '../../../../lib/auth/principal.ts';
import { env } from '../../../../lib/config/env.ts';
import { getDb } from '../../../../lib/db/index.ts';
import { openDownload } from '../../../../lib/downloads/downloads.ts';
import { handle } from '../../../../lib/http/respond.ts';

/**
 * GET /v1/downloads/{id}/file: the file of a finished download, for the user who asked for it only
 * (tenant- and user-scoped; another user's id is a 404). Streamed, never buffered whole.
 */
export const GET: APIRoute = ({ params, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const { download, path } = await openDownload(await getDb(), { tenantId: principal.tenantId, userId: principal.userId, id: params.id ?? '', dataDir: env().dataDir });
    const stream = Readable.toWeb(fs.createReadStream(path)) as unknown as ReadableStream;
    const asciiName = download.fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
    return new Response(stream, {
      headers: {
        'content-type': download.contentType,
        'content-length': String(download.sizeBytes ?? ''),
        'content-disposition': `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(download.fileName)}`,
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  });

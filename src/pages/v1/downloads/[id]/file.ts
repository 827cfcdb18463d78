import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { env } from '#lib/config/env.ts';
import { pageDb } from '../../../../server/db.ts';
import { openDownload } from '#lib/downloads/downloads.ts';
import { contentDisposition } from '#lib/http/content-disposition.ts';
import { handle } from '#lib/http/respond.ts';

/**
 * GET /v1/downloads/{id}/file: the file of a finished download, for the user who asked for it only
 * (tenant- and user-scoped; another user's id is a 404). Streamed, never buffered whole.
 */
export const GET: APIRoute = ({ params, locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const { download, path } = await openDownload(await pageDb(), {
      tenantId: principal.tenantId,
      userId: principal.userId,
      id: params.id ?? '',
      dataDir: env().dataDir,
    });
    const stream = Readable.toWeb(fs.createReadStream(path)) as unknown as ReadableStream;
    return new Response(stream, {
      headers: {
        'content-type': download.contentType,
        'content-length': String(download.sizeBytes ?? ''),
        'content-disposition': contentDisposition('attachment', download.fileName),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  });
